"""Truncation: the last resort, when there is no summary or it was not enough.

Keeps the newest turns that fit (within the current turn, the newest steps that fit), always the
newest user message and the step still in flight, and the retain/summary pair of an earlier
compaction when there is room. A note takes the place of what was dropped and lists the refs of
its outputs, which the archive still holds; the chain then ends the note with the transcript
range it replaced (`m_12-340`), so the chat text can be read back too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agent_tui.messages import Message

from .result import StrategyOutcome
from .shape import (
    collect_refs,
    inflight_start,
    leading_system,
    newest_user_index,
    turn_starts,
    units,
)

if TYPE_CHECKING:
    from agent_tui.tokens import TokenCounter

    from .result import CompactionPlan

log = logging.getLogger(__name__)


def truncation_note(dropped: list[Message]) -> Message:
    """The note standing in for dropped messages: how many, and the refs that bring them back."""
    refs = collect_refs(dropped)
    n = len(dropped)
    text = f"[Context note: {n} earlier message{'s' * (n != 1)} were dropped to fit the context window."
    if refs:
        listed = ", ".join(f"ref={r}" for r in refs)
        text += (
            " Their tool outputs remain in the archive; read_result(ref_id=…) or recall(…) "
            f"brings one back: {listed}]"
        )
    else:
        text += " None of them held a stored tool output.]"
    return Message(role="user", content=text, kind="note")


def truncate(messages: list[Message], plan: CompactionPlan, counter: TokenCounter) -> StrategyOutcome:
    """Drop the oldest units until the rest (plus the note) fits the budget."""
    total = counter.count_messages(messages)
    budget = plan.conversation_budget
    if total <= budget:
        return StrategyOutcome(messages, 0, total)
    n = len(messages)
    n_sys = leading_system(messages)
    pinned_end = n_sys
    while pinned_end < n and messages[pinned_end].kind in ("retain", "summary"):
        pinned_end += 1
    newest = newest_user_index(messages)
    inflight = inflight_start(messages)
    must = set(range(n_sys))
    if inflight is not None:
        must.update(range(inflight, n))
    if newest is not None:
        must.add(newest)
        # The answer to the newest message too: dropped, the next request would show the user's
        # question unanswered (and two user turns in a row), and the model would answer it again.
        last = messages[-1]
        if newest < n - 1 and last.role == "assistant" and not last.tool_calls:
            must.add(n - 1)
    cost = sum(counter.count_message(messages[i]) for i in must)
    # An upper bound for the note: as if everything that may go went.
    droppable = [m for i, m in enumerate(messages) if i not in must]
    cost += counter.count_message(truncation_note(droppable))

    suffix = n
    for unit in reversed(units(messages)):
        if unit.start < pinned_end:
            break
        extra = sum(counter.count_message(messages[i]) for i in range(unit.start, unit.end) if i not in must)
        if cost + extra > budget:
            break
        cost += extra
        suffix = unit.start
    if newest is not None and suffix < newest:
        # Reaching into older turns: keep whole turns only, not the tail end of one.
        suffix = next((s for s in turn_starts(messages) if s >= suffix), suffix)

    keep = set(must) | set(range(suffix, n))
    pinned = range(n_sys, min(pinned_end, suffix))
    pinned_cost = sum(counter.count_message(messages[i]) for i in pinned if i not in keep)
    if pinned and cost + pinned_cost <= budget:
        keep.update(pinned)
    dropped = [m for i, m in enumerate(messages) if i not in keep]
    if not dropped:
        return StrategyOutcome(messages, 0, total)
    head = [messages[i] for i in range(pinned_end) if i in keep]
    rest = [messages[i] for i in range(pinned_end, n) if i in keep]
    out = head + [truncation_note(dropped)] + rest
    after = counter.count_messages(out)
    if after >= total:
        return StrategyOutcome(messages, 0, total)
    log.debug("truncation: %d messages dropped, %d tokens left", len(dropped), after)
    return StrategyOutcome(out, len(dropped) + 1, after)
