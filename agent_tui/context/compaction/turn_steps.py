"""The turn in flight keeps its steps: their outputs' views shrink before a step is dropped.

A model counting its own steps (or checking what it already ran) starts over when compaction
summarises or drops the earlier steps of the turn it is in the middle of. The README promises
the last turns stay verbatim, so when the current turn no longer fits, its older tool outputs
become placeholders that keep their refs (oldest first, the step in flight never), and only if
the turn still does not fit do the strategies fall back to cutting inside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .clearing import is_trimmed, trimmed_placeholder
from .shape import inflight_start, turn_starts

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter


def current_turn_start(messages: list[Message]) -> int | None:
    """Where the newest turn starts (its user message), None when there is none."""
    starts = turn_starts(messages)
    return starts[-1] if starts else None


def shrink_turn_views(messages: list[Message], counter: TokenCounter, room: int) -> list[Message] | None:
    """`messages` with the current turn's older tool outputs cut to placeholders, oldest first,
    until the turn (from its user message on) fits `room` tokens. The list itself when it fits
    already; None when it cannot fit even with every one of them cut (then the caller cuts
    inside the turn as before)."""
    start = current_turn_start(messages)
    if start is None:
        return None
    total = counter.count_messages(messages[start:])
    if total <= room:
        return messages
    inflight = inflight_start(messages)
    end = inflight if inflight is not None and inflight > start else len(messages)
    out = list(messages)
    for i in range(start, end):
        m = out[i]
        if m.role != "tool" or is_trimmed(m):
            continue
        shrunk = m.with_content(trimmed_placeholder(m))
        saved = counter.count_message(m) - counter.count_message(shrunk)
        if saved <= 0:
            continue
        out[i] = shrunk
        total -= saved
        if total <= room:
            return out
    return None
