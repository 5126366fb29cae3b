"""Rewind: back to just before an earlier user message — the conversation, the files, or both.

A rewind is a branch of the append-only transcript, never an edit of it. The live history
becomes what it was before the chosen message; a note recording the rewind is appended to the
transcript and a snapshot of the shortened history is saved after it, so resume starts from the
rewound conversation while every discarded message stays in the transcript: readable as the range
`m_<first>-<last>` the note names and found by `recall`. Files go back through the edit
checkpoints `/undo` uses (agent/undo.py): every turn from the chosen one on is undone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_tui.agent.undo import UndoReport, undo
from agent_tui.base.messages import Message
from agent_tui.base.user_command_text import typed_text
from agent_tui.store.branches import rewind_note

if TYPE_CHECKING:
    from agent_tui.agent.session_port import HistoryOwner

log = logging.getLogger(__name__)

Scope = Literal["conversation", "files", "both"]


@dataclass(frozen=True)
class RewindPoint:
    """An earlier user message the conversation can go back to."""

    index: int
    """Its position in the live history."""
    seq: int | None
    """Its number in the transcript (None when it was never stored)."""
    text: str
    """What the user wrote (goes back into the input to edit)."""


@dataclass(frozen=True)
class RewindReport:
    point: RewindPoint
    scope: Scope
    discarded: str | None
    """The transcript range the conversation left (`m_12-30`), None when it stayed."""
    files: UndoReport | None

    def describe(self) -> str:
        parts = []
        if self.scope != "files":
            where = f"; the rest stays readable as {self.discarded}" if self.discarded else ""
            parts.append(
                f"Conversation rewound to before message {self.point.seq or self.point.index + 1}{where}."
            )
        if self.files is not None:
            parts.append(self.files.describe())
        return " ".join(parts)


async def rewind_points(session: HistoryOwner) -> list[RewindPoint]:
    """The user's own messages still in the live history, oldest first."""
    seqs = await session.store.sessions.user_sequences(session.session_id) if session.store else {}
    return [
        RewindPoint(i, seqs.get(m.id), typed_text(m.content))
        for i, m in enumerate(session.history)
        if m.role == "user" and m.kind == "chat" and isinstance(m.content, str)
    ]


async def rewind(session: HistoryOwner, point: RewindPoint, scope: Scope) -> RewindReport:
    """Go back to just before `point` (see the module docstring)."""
    files = None
    if scope in ("files", "both") and session.store is not None and point.seq is not None:
        turns = [t for t in await session.store.checkpoints.turns(session.session_id) if t >= point.seq]
        files = await undo(session.store, session.session_id, len(turns)) if turns else UndoReport()
    discarded = None
    if scope in ("conversation", "both"):
        last = await session.store.sessions.last_sequence(session.session_id) if session.store else 0
        if point.seq is not None and last >= point.seq:
            discarded = f"m_{point.seq}-{last}"
        first = point.seq if discarded else None
        note = Message(role="user", kind="note", content=rewind_note(point.seq, first, last))
        # The note goes into the transcript only: the snapshot after it is what resume loads.
        await session.adopt_history(session.history[: point.index], persist=[note], snapshot=True)
    return RewindReport(point, scope, discarded, files)
