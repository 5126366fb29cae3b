"""Which background commands each session started and how they ended.

A background command ends with its session's process (exit, signal, crash via the watchdog). A
session resumed later has its history but not those processes: the model must be told they are
gone, or it would wait on a server that no longer runs. The row is written when the command
starts (so a crash leaves it `running`), updated when it ends, and read once on resume.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from agent_tui.store.db import Database

ENDED_WITH_SESSION = "ended with the session"


@dataclass(frozen=True)
class LostCommand:
    """A background command that ended with an earlier process of the session."""

    shell_id: str
    command: str
    ref: str | None
    """Its output, readable as ever."""


class BackgroundLog:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def started(self, session_id: str, shell_id: str, command: str, ref: str | None) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "INSERT OR REPLACE INTO background_commands "
                "(session_id, shell_id, command, ref, started, state) VALUES (?, ?, ?, ?, ?, 'running')",
                (session_id, shell_id, command, ref, time.time()),
            )

    async def ended(self, session_id: str, shell_id: str, state: str, exit_code: int | None) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "UPDATE background_commands SET ended = ?, state = ?, exit_code = ?, "
                "told = told OR ? WHERE session_id = ? AND shell_id = ?",
                (time.time(), state, exit_code, int(state != ENDED_WITH_SESSION), session_id, shell_id),
            )

    async def take_lost(self, session_id: str) -> list[LostCommand]:
        """Commands still running when the session's last process ended (killed with it, or
        left `running` by a crash), not yet told to a resumed session; marks them told."""
        rows = await self.db.fetchall(
            "SELECT shell_id, command, ref FROM background_commands WHERE session_id = ? AND told = 0 "
            "AND state IN ('running', ?) ORDER BY started",
            (session_id, ENDED_WITH_SESSION),
        )
        if rows:
            async with self.db.write() as conn:
                await conn.execute(
                    "UPDATE background_commands SET told = 1, state = CASE state WHEN 'running' "
                    "THEN ? ELSE state END WHERE session_id = ? AND told = 0",
                    (ENDED_WITH_SESSION, session_id),
                )
        return [LostCommand(r[0], r[1], r[2]) for r in rows]

    async def last_number(self, session_id: str) -> int:
        """The highest `sh_N` the session used, so a resumed session does not reuse an id."""
        rows = await self.db.fetchall(
            "SELECT shell_id FROM background_commands WHERE session_id = ?", (session_id,)
        )
        numbers = [int(r[0][3:]) for r in rows if r[0].startswith("sh_") and r[0][3:].isdigit()]
        return max(numbers, default=0)
