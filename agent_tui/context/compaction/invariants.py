"""What every compaction must preserve, as a function the tests (and a cautious caller) run.

`check_invariants(before, after)` returns the broken rules as sentences; an empty list means the
new history is safe to send: the system and newest user messages survived, tool calls and
results still pair exactly, no result is orphaned, and every ref the old history held still
appears in the new one, so every trimmed, condensed or dropped output can be brought back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .ref_labels import omitted_count
from .shape import collect_refs, newest_user_index

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter

    from .result import CompactResult


def _unanswered_tail(messages: Sequence[Message]) -> set[str]:
    """Call ids of the trailing assistant message left without results (the step in flight)."""
    i = len(messages) - 1
    answered: set[str] = set()
    while i >= 0 and messages[i].role == "tool":
        answered.add(messages[i].tool_call_id or "")
        i -= 1
    if i >= 0 and messages[i].role == "assistant" and messages[i].tool_calls:
        return {c.id for c in messages[i].tool_calls} - answered
    return set()


def pairing_problems(messages: Sequence[Message], in_flight: set[str] | None = None) -> list[str]:
    """Each assistant `tool_calls` must be followed by exactly its results; only the trailing
    step may lack results, and only those in `in_flight` (unanswered before compaction too)."""
    problems: list[str] = []
    allowed = in_flight or set()
    i, n = 0, len(messages)
    while i < n:
        m = messages[i]
        if m.role == "tool":
            problems.append(f"message {i}: tool result {m.tool_call_id!r} follows no call of its own")
            i += 1
            continue
        if not (m.role == "assistant" and m.tool_calls):
            i += 1
            continue
        remaining = {c.id for c in m.tool_calls}
        j = i + 1
        while j < n and messages[j].role == "tool":
            call_id = messages[j].tool_call_id
            if call_id in remaining:
                remaining.discard(call_id)
            else:
                problems.append(f"message {j}: tool result {call_id!r} answers no call of message {i}")
            j += 1
        if remaining and not (j == n and remaining <= allowed):
            problems.append(f"message {i}: calls {sorted(remaining)} have no result")
        i = j
    return problems


def check_invariants(
    before: Sequence[Message],
    after: Sequence[Message],
    *,
    counter: TokenCounter | None = None,
    result: CompactResult | None = None,
) -> list[str]:
    """The rules `after` breaks, as sentences; empty = OK. With `counter`, growth is a problem;
    with `result` too, so is missing the target without a reason."""
    problems: list[str] = []
    after_ids = {m.id for m in after}
    for m in before:
        if m.role == "system" and m.id not in after_ids:
            problems.append(f"system message {m.id} was dropped")
    newest = newest_user_index(before)
    if newest is not None:
        wanted = before[newest]
        if not any(m.id == wanted.id or (m.role == "user" and m.content == wanted.content) for m in after):
            problems.append("the newest user message did not survive")
    problems += pairing_problems(after, _unanswered_tail(before))
    kept = set(collect_refs(after))
    missing = [r for r in collect_refs(before) if r not in kept]
    if missing:
        text = "\n".join(
            [m.content or "" for m in after] + [c.arguments for m in after for c in m.tool_calls]
        )
        lost = [r for r in missing if r not in text]
        # A capped ref list names the newest and counts the rest, which recall and the
        # transcript range still find: those are left out, not lost.
        if len(lost) > omitted_count(after):
            problems.append(f"refs no longer in the history: {', '.join(lost[:10])}")
    if counter is not None:
        old, new = counter.count_messages(before), counter.count_messages(after)
        if new > old:
            problems.append(f"the history grew ({old} → {new} tokens)")
        if result is not None:
            whole = new + result.fixed_tokens
            if result.reached_target and whole > result.target_tokens:
                problems.append(f"reached_target is set but {whole} > {result.target_tokens}")
            if whole > result.target_tokens and not result.reason:
                problems.append("over the target with no reason given")
            if not result.applied and list(after) != list(before):
                problems.append("not applied, yet the history changed")
    return problems
