"""File checkpoints: before write_file or edit_file changes a file, its previous content is kept
as a blob and the change is recorded against the turn, so /undo can put the files back.

`after_sha` is the hash of what the agent wrote: a file whose content no longer hashes to it was
changed outside the agent since, and undo will not overwrite it without being told to.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from agent_tui.store.db import Database


@dataclass(frozen=True)
class Checkpoint:
    id: int
    session_id: str
    turn_seq: int
    """Transcript sequence of the user message that started the turn."""
    path: str
    """Absolute path of the file changed."""
    before_ref: str | None
    """Blob holding the previous content; None when the file did not exist."""
    after_sha: str
    """sha256 of the content the agent left."""


class CheckpointStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(
        self, session_id: str, turn_seq: int, path: str, before_ref: str | None, after_sha: str
    ) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO file_checkpoints (session_id, turn_seq, path, before_ref, "
                "after_sha, created) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, turn_seq, path, before_ref, after_sha, time.time()),
            )

    async def turns(self, session_id: str) -> list[int]:
        """Turns with changes not yet undone, newest first."""
        rows = await self.db.fetchall(
            "SELECT DISTINCT turn_seq FROM file_checkpoints WHERE session_id = ? AND undone = 0 "
            "ORDER BY turn_seq DESC",
            (session_id,),
        )
        return [r[0] for r in rows]

    async def for_turn(self, session_id: str, turn_seq: int) -> list[Checkpoint]:
        rows = await self.db.fetchall(
            "SELECT id, session_id, turn_seq, path, before_ref, after_sha FROM file_checkpoints "
            "WHERE session_id = ? AND turn_seq = ? AND undone = 0 ORDER BY id",
            (session_id, turn_seq),
        )
        return [Checkpoint(*r) for r in rows]

    async def mark_undone(self, ids: list[int]) -> None:
        if not ids:
            return
        async with self.db.write() as conn:
            await conn.executemany("UPDATE file_checkpoints SET undone = 1 WHERE id = ?", [(i,) for i in ids])

    async def previous_of_call(self, session_id: str, call_id: str) -> str | None:
        """The blob holding what a file held before the call `call_id` changed it (None when
        the call saved none: a new file, or no store then)."""
        row = await self.db.fetchone(
            "SELECT id FROM tool_result_blobs WHERE session_id = ? AND tool_call_id = ? "
            "AND tool_name LIKE 'checkpoint:%' LIMIT 1",
            (session_id, call_id),
        )
        return str(row[0]) if row else None
