"""Truncation: the last resort, when there is no summary or it was not enough.

Keeps the newest turns that fit (within the current turn, the newest steps that fit), always the
newest user message and the step still in flight, and the retain/summary pair of an earlier
compaction when there is room (else the summary alone, cut to the room left). A note takes the
place of what was dropped and lists the refs of its outputs, which the archive still holds; the
chain then ends the note with the transcript range it replaced (`m_12-340`), so the chat text can
be read back too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agent_tui.base.messages import Message

from .ref_labels import listing_cap, listing_for, omitted_count
from .result import StrategyOutcome
from .shape import (
    inflight_start,
    leading_system,
    newest_user_index,
    turn_starts,
    units,
)
from .transcript import RANGE_RE
from .user_words import newest_user_messages, render, retained_items, user_budget

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter

    from .result import CompactionPlan

log = logging.getLogger(__name__)


def truncation_note(
    dropped: list[Message], counter: TokenCounter, plan: CompactionPlan | None = None
) -> Message:
    """The note standing in for dropped messages: how many, what their outputs were (labelled
    refs, newest first past a cap), what an earlier retain block kept, and the user's newest
    words verbatim: the retain block a summary would have left, made without a model."""
    n = len(dropped)
    text = f"[Context note: {n} earlier message{'s' * (n != 1)} were dropped to fit the context window."
    budget = plan.conversation_budget if plan is not None else 0
    listing = listing_for(dropped, counter, listing_cap(budget), omitted_count(dropped))
    if listing:
        text += (
            " Their tool outputs remain stored; grep_result(ref_id=…, pattern=…) or "
            "read_result(ref_id=…) brings one back]\n" + listing
        )
    else:
        text += " None of them held a stored tool output.]"
    kept = retained_items(dropped, counter, listing_cap(budget))
    if kept:
        text += "\n" + kept
    said = newest_user_messages(dropped, counter, user_budget(plan)) if plan is not None else []
    if said:
        text += "\n" + render(said)
    return Message(role="user", content=text, kind="note")


CUT_MIN_TOKENS = 48
"""Below this much room a summary is dropped rather than cut to a stub."""
CUT_MARK = "[… the rest of this summary was cut to fit the context window]"


def cut_summary(summary: Message, room: int, counter: TokenCounter) -> Message | None:
    """`summary` shortened to `room` tokens: its header line and as much of its start as fits.
    Its transcript-range line goes (the truncation note names that range, since the original
    counts as dropped). None when there is too little room to be worth it."""
    if room < CUT_MIN_TOKENS:
        return None
    lines = (summary.content or "").split("\n")
    lines = [line for line in lines if not (line.startswith("[Earlier messages ") and RANGE_RE.search(line))]
    header, body = lines[0], "\n".join(lines[1:])

    def shortened(chars: int) -> Message:
        return summary.with_content(f"{header}\n{body[:chars].rstrip()}\n{CUT_MARK}")

    low, high = 0, len(body)
    while low < high:
        mid = (low + high + 1) // 2
        if counter.count_message(shortened(mid)) <= room:
            low = mid
        else:
            high = mid - 1
    if low == 0:
        return None
    return shortened(low)


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
    cost += counter.count_message(truncation_note(droppable, counter, plan))

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
    shortened: dict[int, Message] = {}
    if pinned and cost + pinned_cost <= budget:
        keep.update(pinned)
    elif pinned:
        # A summary is worth more than nothing: cut to the room left rather than dropped whole.
        at = next((i for i in pinned if messages[i].kind == "summary"), None)
        cut = None if at is None else cut_summary(messages[at], budget - cost, counter)
        if at is not None and cut is not None:
            shortened[at] = cut
    dropped = [m for i, m in enumerate(messages) if i not in keep]
    if not dropped:
        return StrategyOutcome(messages, 0, total)
    head = [messages[i] for i in range(pinned_end) if i in keep]
    head += [shortened[i] for i in sorted(shortened)]
    rest = [messages[i] for i in range(pinned_end, n) if i in keep]
    out = head + [truncation_note(dropped, counter, plan)] + rest
    after = counter.count_messages(out)
    if after >= total:
        return StrategyOutcome(messages, 0, total)
    log.debug("truncation: %d messages dropped, %d tokens left", len(dropped), after)
    return StrategyOutcome(out, len(dropped) + 1, after)
