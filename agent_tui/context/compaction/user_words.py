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

from agent_tui.messages import Message

if TYPE_CHECKING:
    from agent_tui.tokens import TokenCounter

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
        if m.kind == "retain":
            said.extend(carried(m))
        elif m.role == "user" and m.kind == "chat" and (m.content or "").strip():
            said.append((m.content or "").strip())
    kept: list[str] = []
    used = 0
    for text in reversed(said):
        cost = counter.count_text(text) + 4
        if used + cost > budget:
            break
        kept.append(text)
        used += cost
    return kept[::-1]


def render(said: Sequence[str]) -> str:
    """The retain block's section: one `user:` entry per message, continuation lines indented."""
    entries = [_FIRST + text.replace("\n", "\n" + _MORE) for text in said]
    return HEADER + "\n" + "\n".join(entries)
