"""The user's own words through compactions: the newest user messages kept verbatim.

A decision or a standing instruction typed in plain chat ("never touch the migrations folder")
must not depend on the summariser noticing it. As Codex does, the newest user messages of the
part a summary replaces go into the retain block word for word, up to
`[compaction] keep_user_messages_tokens`; the next compaction reads them back out of the old
retain block, so they carry forward until newer messages push them out of the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui.base.messages import Message

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter

    from .result import CompactionPlan

HEADER = "The user's newest messages from that part, verbatim (oldest first):"
_FIRST = "user: "
_MORE = "  "


def carried(retain: Message) -> list[str]:
    """The verbatim user messages an earlier retain block holds, oldest first."""
    text = retain.content or ""
    start = text.find(HEADER)
    if start < 0:
        return []
    found: list[str] = []
    for line in text[start + len(HEADER) :].split("\n")[1:]:
        if line.startswith(_FIRST):
            found.append(line[len(_FIRST) :])
        elif line.startswith(_MORE) and found:
            found[-1] += "\n" + line[len(_MORE) :]
        else:
            break
    return found


def newest_user_messages(summarised: Sequence[Message], counter: TokenCounter, budget: int) -> list[str]:
    """The newest things the user typed in `summarised` (old retain blocks included), oldest
    first, while they fit `budget` tokens."""
    said: list[str] = []
    for m in summarised:
        if m.kind in ("retain", "note"):
            said.extend(carried(m))
        elif m.role == "user" and m.kind == "chat" and (m.content or "").strip():
            said.append((m.content or "").strip())
    return newest_that_fit(said, counter, budget, per_item=4)


def newest_that_fit(
    texts: Sequence[str], counter: TokenCounter, budget: int, *, per_item: int = 1, first_free: bool = False
) -> list[str]:
    """The newest of `texts` (oldest first) that fit `budget` tokens together, each costing its
    count plus `per_item`; in their order. `first_free`: the newest is kept whatever it costs."""
    kept: list[str] = []
    used = 0
    for text in reversed(texts):
        cost = counter.count_text(text) + per_item
        if used + cost > budget and not (first_free and not kept):
            break
        kept.append(text)
        used += cost
    return kept[::-1]


def render(said: Sequence[str]) -> str:
    """The retain block's section: one `user:` entry per message, continuation lines indented."""
    entries = [_FIRST + text.replace("\n", "\n" + _MORE) for text in said]
    return HEADER + "\n" + "\n".join(entries)


USER_SHARE = 8
"""The verbatim user messages take at most 1/USER_SHARE of the conversation budget."""


def user_budget(plan: CompactionPlan) -> int:
    return min(plan.keep_user_tokens, plan.conversation_budget // USER_SHARE)


ITEMS_HEADER = "Kept from an earlier summary's retain block:"
_RETAIN_HEAD = "[Kept verbatim from "
_SECTION_ENDS = (HEADER, "Stored outputs from that part", "[Earlier messages ")


def retain_items(message: Message) -> list[str]:
    """The items (decisions, paths, names) a retain block or a note carrying one holds: the
    lines under its header, up to its user-words or ref section."""
    if message.kind not in ("retain", "note"):
        return []  # never split a tool output just to find nothing
    lines = (message.content or "").split("\n")
    if message.kind == "retain" and lines and lines[0].startswith(_RETAIN_HEAD):
        body = lines[1:]
    elif message.kind == "note" and ITEMS_HEADER in lines:
        body = lines[lines.index(ITEMS_HEADER) + 1 :]
    else:
        return []
    items: list[str] = []
    for line in body:
        if line.startswith(_SECTION_ENDS):
            break
        if line.strip() and not line.startswith("ref="):  # refs travel in the labelled list
            items.append(line)
    return items


def retained_items(dropped: Sequence[Message], counter: TokenCounter, budget: int) -> str:
    """The items of the retain blocks a truncation drops (newest block first), within `budget`
    tokens: a summary's decisions survive a later truncation. Empty when there is none."""
    items: list[str] = []
    for m in dropped:
        if m.kind in ("retain", "note"):
            items.extend(i for i in retain_items(m) if i not in items)
    kept = newest_that_fit(items, counter, budget - counter.count_text(ITEMS_HEADER))
    return "\n".join([ITEMS_HEADER, *kept]) if kept else ""
