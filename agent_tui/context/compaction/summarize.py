"""Summarisation: the old part of the history becomes a retain block and a summary.

What stays verbatim is chosen first (`choose_split`): the last `retain_last_turns` turns when they
fit, otherwise the newest user message plus the newest steps of the current turn that fit — and
always the step still in flight, so a `compact_context` call and its result survive. Everything
else goes to the summariser. The retain block then lists every ref the summarised part held,
collected mechanically: a ref the model left out is added, so no stored output becomes
unreachable. The newest user messages go in verbatim too (`user_words`), with the room the
summary leaves.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.base.messages import Message, Role

from .ref_labels import labels_of, listing_cap, omitted_count, ref_listing
from .result import StrategyOutcome
from .shape import (
    collect_refs,
    inflight_start,
    leading_system,
    newest_user_index,
    text_refs,
    turn_starts,
    units,
)
from .summary_prompt import Summarizer, model_name, summarise_history
from .user_words import newest_user_messages, render, user_budget

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter

    from .result import CompactionPlan

log = logging.getLogger(__name__)

REF_LINE_TOKENS = 24
"""About what one labelled ref line costs in the retain block (for reserving room)."""


@dataclass(frozen=True)
class Split:
    """Which messages are summarised and which are kept verbatim (indices, in order)."""

    head: tuple[int, ...]
    """Summarised."""
    tail: tuple[int, ...]
    """Kept verbatim after the summary."""
    context: tuple[int, ...]
    """What the summariser is shown: the head, plus the newest user message when the head
    holds steps of the current turn (so the summary knows what they were for)."""


def choose_split(messages: list[Message], plan: CompactionPlan, counter: TokenCounter, reserve: int) -> Split:
    n = len(messages)
    n_sys = leading_system(messages)
    room = plan.conversation_budget - reserve
    starts = [s for s in turn_starts(messages) if s > n_sys]
    for k in range(min(plan.retain_last_turns, len(starts)), 0, -1):
        start = starts[-k]
        if counter.count_messages(messages[start:]) <= room:
            head = tuple(range(n_sys, start))
            return Split(head, tuple(range(start, n)), head)
    newest = newest_user_index(messages)
    inflight = inflight_start(messages)
    suffix = inflight if inflight is not None else n
    used = counter.count_messages(messages[suffix:])
    if newest is not None and newest < suffix:
        used += counter.count_message(messages[newest])
    for unit in reversed(units(messages)):
        if unit.start >= suffix:
            continue
        if unit.start <= (newest if newest is not None else n_sys - 1):
            break
        cost = counter.count_messages(messages[unit.start : unit.end])
        if used + cost > room:
            break
        used += cost
        suffix = unit.start
    moved = [newest] if newest is not None and newest < suffix else []
    tail = tuple(moved + list(range(suffix, n)))
    kept = set(tail)
    head = tuple(i for i in range(n_sys, n) if i not in kept)
    context = head
    if newest is not None and head and head[-1] > newest:
        context = tuple(sorted({*head, newest}))
    return Split(head, tail, context)


def split_all(messages: list[Message]) -> Split:
    """What an explicit summary request (`/compact <instructions>`) summarises when the last
    turns would otherwise stay whole: everything but the newest user message, its final answer
    and the step in flight."""
    n = len(messages)
    n_sys = leading_system(messages)
    newest = newest_user_index(messages)
    inflight = inflight_start(messages)
    keep: set[int] = set()
    if newest is not None:
        keep.add(newest)
    if inflight is not None:
        keep.update(range(inflight, n))
    elif n and messages[-1].role == "assistant" and (newest is None or newest < n - 1):
        keep.add(n - 1)
    head = tuple(i for i in range(n_sys, n) if i not in keep)
    context = tuple(sorted({*head, newest})) if newest is not None and head and head[-1] > newest else head
    return Split(head, tuple(sorted(keep)), context)


def retain_message(
    summarised: list[Message], retain: str, counter: TokenCounter, budget: int, user_tokens: int = 0
) -> Message:
    """The retain block: the model's items, the newest user messages verbatim, and every ref of
    the summarised part the model left out."""
    refs = collect_refs(summarised)
    # Counted as kept only when written as a ref (`ref=r_1`), so the next compaction finds it.
    named = set(text_refs(retain))
    missing = [r for r in refs if r not in named]
    text = f"[Kept verbatim from {len(summarised)} earlier messages, which the summary replaces]"
    if retain.strip():
        text += "\n" + retain.strip()
    said = newest_user_messages(summarised, counter, user_tokens) if user_tokens > 0 else []
    if said:
        text += "\n" + render(said)
    if missing:
        listing = ref_listing(
            missing, labels_of(summarised), counter, listing_cap(budget), omitted_count(summarised)
        )
        text += (
            "\nStored outputs from that part (grep_result(ref_id=…, pattern=…) or "
            "read_result(ref_id=…) brings one back):\n" + listing
        )
    return Message(role="user", content=text, kind="retain")


def layout(messages: list[Message], split: Split, retain: Message, summary: str) -> list[Message]:
    """System messages, retain block, summary, then the kept messages. The summary takes the
    assistant role when a user message follows (strict providers want alternation), else user
    (a trailing assistant message would read as a prefill)."""
    n_sys = leading_system(messages)
    tail = [messages[i] for i in split.tail]
    role: Role = "assistant" if tail and tail[0].role == "user" else "user"
    header = (
        f"[Summary of the {len(split.head)} earlier messages, written during context compaction; "
        "the newest messages follow verbatim]"
    )
    summary_msg = Message(role=role, content=f"{header}\n{summary}", kind="summary")
    return [*messages[:n_sys], retain, summary_msg, *tail]


def reserve_for(messages: list[Message], plan: CompactionPlan) -> int:
    """Room kept for the summary and the retain block when choosing what stays verbatim (the
    verbatim user messages take what room is left after, so they never push out the last turn)."""
    listed = min(REF_LINE_TOKENS * len(collect_refs(messages)), listing_cap(plan.conversation_budget))
    return plan.summary_max_tokens + listed + 120


async def summarize(
    messages: list[Message],
    plan: CompactionPlan,
    counter: TokenCounter,
    summarizer: Summarizer,
    *,
    instructions: str,
    on_progress: Callable[[str], None] | None = None,
    everything: bool = False,
) -> StrategyOutcome:
    """Replace the old part with a retain block and a summary. Raises `SummaryFailed`. With
    `everything` (the user asked for a summary), the last turns are summarised too when
    nothing older is left."""
    total = counter.count_messages(messages)
    split = choose_split(messages, plan, counter, reserve_for(messages, plan))
    if not split.head and everything:
        split = split_all(messages)
    if not split.head:
        note = (
            "nothing before the newest message to summarise"
            if everything
            else "nothing old enough to summarise"
        )
        return StrategyOutcome(messages, 0, total, notes=(note,))
    progress = on_progress or (lambda _label: None)
    retain, summary = await summarise_history(
        summarizer,
        [messages[i] for i in split.context],
        instructions=instructions,
        max_tokens=plan.summary_max_tokens,
        window=plan.summarizer_window,
        counter=counter,
        progress=progress,
    )
    summarised = [messages[i] for i in split.head]
    keep = retain_message(summarised, retain, counter, plan.conversation_budget)
    out = layout(messages, split, keep, summary)
    after = counter.count_messages(out)
    # The user's own words go in with what room the summary left: never past the target.
    spare = min(user_budget(plan), plan.conversation_budget - after - 40)
    if spare > 0:
        keep = retain_message(summarised, retain, counter, plan.conversation_budget, spare)
        out = layout(messages, split, keep, summary)
        after = counter.count_messages(out)
    if after >= total:
        note = "the summary would not shrink the history"
        return StrategyOutcome(messages, 0, total, notes=(note,))
    log.debug("summary: %d messages → 2, %d → %d tokens", len(split.head), total, after)
    return StrategyOutcome(out, len(split.head) + 2, after, model=model_name(summarizer))


def estimate_tokens(messages: list[Message], plan: CompactionPlan, counter: TokenCounter) -> int:
    """What the conversation would hold after a summary, without calling a model: the kept
    messages, the mechanical retain block, and a summary of a tenth of the part it replaces
    (at least 200 tokens, at most the reply limit)."""
    split = choose_split(messages, plan, counter, reserve_for(messages, plan))
    total = counter.count_messages(messages)
    if not split.head:
        return total
    summarised = [messages[i] for i in split.head]
    summary = min(plan.summary_max_tokens, max(200, counter.count_messages(summarised) // 10))
    keep = retain_message(summarised, "", counter, plan.conversation_budget, user_budget(plan))
    kept = counter.count_messages([messages[i] for i in range(leading_system(messages))])
    kept += counter.count_messages([messages[i] for i in split.tail])
    return min(total, kept + counter.count_message(keep) + summary + 40)
