"""Naming what a compaction dropped: the transcript range it replaced, as a ref the model can read.

The transcript keeps every message; a summary or truncation note takes their place in the window.
So the text that replaces them ends with a line added here, never left to the summariser:
`[Earlier messages 12-340 are stored: read_result(ref_id="m_12-340") …]`. Which transcript
messages a history holds is told by a `TranscriptIndex` the loop builds from the store (ids, and
tool-call ids for outputs that clearing rewrote under a new id); a summary or note that an earlier
compaction left covers the range its own line names, so ranges chain across compactions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from agent_tui.base.messages import Message

RANGE_RE = re.compile(r"\bm_(\d+)-(\d+)\b")
"""A transcript range as the line writes it (same shape as `agent_tui.store.refs.RANGE_RE`;
copied, since context/ does not import the store)."""
LINE_TOKENS = 64
"""Room a compaction keeps for the line it adds (it is about 50 tokens)."""
_COVERING_KINDS = ("summary", "retain", "note")


def range_line(first: int, last: int) -> str:
    """The line ending every summary and truncation note that replaced messages."""
    ref = f"m_{first}-{last}"
    return (
        f"[Earlier messages {first}-{last} are stored in the transcript: "
        f'read_result(ref_id="{ref}") pages through them, grep_result(ref_id="{ref}", '
        'pattern="…") or recall(query="…") searches them]'
    )


@dataclass(frozen=True)
class TranscriptIndex:
    """Where each message of the history sits in the session's stored transcript."""

    by_id: Mapping[str, int] = field(default_factory=dict)
    """Message id → transcript sequence number."""
    by_call: Mapping[str, int] = field(default_factory=dict)
    """`tool:<call id>` → the result's seq, `call:<first call id>` → the assistant message's seq
    (outputs trimmed or condensed get a new id but still answer the same call)."""

    @classmethod
    def build(cls, rows: Iterable[tuple[int, str, str | None, str | None]]) -> TranscriptIndex:
        """From (seq, message id, tool_call_id, first tool call's id) per transcript message."""
        by_id: dict[str, int] = {}
        by_call: dict[str, int] = {}
        for seq, message_id, answers, first_call in rows:
            by_id[message_id] = seq
            if answers:
                by_call[f"tool:{answers}"] = seq
            if first_call:
                by_call[f"call:{first_call}"] = seq
        return cls(by_id, by_call)

    def seq_of(self, message: Message) -> int | None:
        seq = self.by_id.get(message.id)
        if seq is not None:
            return seq
        if message.role == "tool" and message.tool_call_id:
            return self.by_call.get(f"tool:{message.tool_call_id}")
        if message.role == "assistant" and message.tool_calls:
            return self.by_call.get(f"call:{message.tool_calls[0].id}")
        return None

    def covered(self, messages: Iterable[Message]) -> tuple[int, int] | None:
        """The transcript range `messages` stand for: their own numbers, and the ranges earlier
        summaries and notes among them name."""
        low: int | None = None
        high: int | None = None
        for m in messages:
            spans: list[tuple[int, int]] = []
            seq = self.seq_of(m)
            if seq is not None:
                spans.append((seq, seq))
            elif m.kind in _COVERING_KINDS:
                spans.extend((int(a), int(b)) for a, b in RANGE_RE.findall(m.content or ""))
            for a, b in spans:
                low = a if low is None else min(low, a)
                high = b if high is None else max(high, b)
        return None if low is None or high is None else (low, high)

    def outside(self, history: Sequence[Message], transcript_length: int) -> int:
        """How many transcript messages the history no longer holds verbatim."""
        held = {seq for m in history if (seq := self.seq_of(m)) is not None}
        return max(transcript_length - len(held), 0)


def name_dropped(before: Sequence[Message], after: list[Message], index: TranscriptIndex) -> list[Message]:
    """End the newest summary or note a strategy added with the line naming the transcript
    range it replaced; `after` unchanged when nothing stored was dropped."""
    kept = {m.id for m in after}
    dropped = [m for m in before if m.id not in kept]
    span = index.covered(dropped)
    if span is None:
        return after
    old = {m.id for m in before}
    for i in range(len(after) - 1, -1, -1):
        m = after[i]
        if m.id not in old and m.kind in ("summary", "note"):
            text = (m.content or "").rstrip("\n")
            out = list(after)
            out[i] = m.with_content(f"{text}\n{range_line(*span)}")
            return out
    return after
