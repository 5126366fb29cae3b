"""Each session's state kept beside its conversation: the task list, the pins, and the record
of every compaction (what it cleared, summarised or dropped, by ref).

Stored as two JSON texts per session (context/side_state.py reads and writes them), one row a
session, replaced whole on every change: both are small, and a resume, a fork or a hand-off
copies them as they were.
"""

from __future__ import annotations

import time

from agent_tui.store.db import Database


class SideStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def load(self, session_id: str) -> tuple[str, str, str] | None:
        """(todos, pins, permission mode) as saved, None when the session never had any."""
        row = await self.db.fetchone(
            "SELECT todos, pins, mode FROM side_state WHERE session_id = ?", (session_id,)
        )
        return (str(row[0]), str(row[1]), str(row[2])) if row else None

    async def save(self, session_id: str, todos: str, pins: str, mode: str = "default") -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT OR REPLACE INTO side_state (session_id, todos, pins, mode, updated) VALUES (?, ?, ?, ?, ?)",
                (session_id, todos, pins, mode, time.time()),
            )

    async def copy(self, source_id: str, target_id: str) -> None:
        """Give `target_id` the state `source_id` has now (a fork, a hand-off)."""
        saved = await self.load(source_id)
        if saved is not None:
            await self.save(target_id, *saved)

    async def add_compaction(self, session_id: str, record: str) -> None:
        """Keep one compaction's result and record (JSON), in order."""
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT INTO compaction_records (session_id, created, record) VALUES (?, ?, ?)",
                (session_id, time.time(), record),
            )

    async def compactions(self, session_id: str) -> list[tuple[float, str]]:
        """(when, JSON) of every compaction of the session, oldest first."""
        rows = await self.db.fetchall(
            "SELECT created, record FROM compaction_records WHERE session_id = ? ORDER BY id", (session_id,)
        )
        return [(float(r[0]), str(r[1])) for r in rows]
