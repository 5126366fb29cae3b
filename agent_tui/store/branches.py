"""Which transcript messages a rewind discarded, read back from the rewind's note.

A rewind appends one note to the append-only transcript naming the range it left
(`m_<first>-<last>`). Anything that copies "the conversation as it was" — a fork — must skip those
ranges, or the copy would hold a branch the user threw away. The note's text is written and read
here only, so the two cannot drift apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_tui.store.db import Database

_NOTE = re.compile(
    r"\[rewound by the user to before message (\d+); messages m_(\d+)-(\d+) are a discarded branch\]"
)


def rewind_note(before: int | None, first: int | None, last: int) -> str:
    """The transcript note of a rewind to before message `before`, discarding `first`…`last`."""
    if first is None:
        return f"[rewound by the user to before message {before}; nothing stored was discarded]"
    return (
        f"[rewound by the user to before message {before}; messages m_{first}-{last} are a discarded branch]"
    )


@dataclass(frozen=True)
class DiscardedBranch:
    """Messages a rewind left, and the note that records it."""

    first: int
    last: int
    note: int
    """The note's own number in the transcript (right after the branch it ends)."""

    @property
    def ref(self) -> str:
        return f"m_{self.first}-{self.last}"

    def holds(self, seq: int) -> bool:
        return self.first <= seq <= self.last


async def discarded_branches(db: Database, session_id: str) -> list[DiscardedBranch]:
    """Every branch a rewind of `session_id` discarded, oldest rewind first."""
    rows = await db.fetchall(
        "SELECT seq, json FROM messages WHERE session_id = ? AND role = 'user' AND kind = 'note' "
        "AND json LIKE '%rewound by the user%' ORDER BY seq",
        (session_id,),
    )
    out = []
    for seq, text in rows:
        found = _NOTE.search(text)
        if found:
            out.append(DiscardedBranch(int(found[2]), int(found[3]), int(seq)))
    return out
