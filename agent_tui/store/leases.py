"""One writer per session: a lease row names the process that has a session open.

Two processes appending to one session (`run --continue` while the TUI has it open) interleave
two diverging histories into one transcript. Opening a session takes its lease; a second live
process gets `SessionBusy` with one line that says who holds it. A lease whose process is gone
(killed, crashed, power loss) is stale and simply taken over: nothing ever has to clean up.
Liveness is checked by pid on this host; a lease from another host is respected.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass

from agent_tui.store.db import Database
from agent_tui.store.errors import StoreError


class SessionBusy(StoreError):
    """Another live agent-tui process has the session open."""


@dataclass(frozen=True)
class Lease:
    session_id: str
    pid: int
    host: str
    acquired: float


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host (one of another user's counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class LeaseStore:
    def __init__(self, db: Database, pid: int | None = None, host: str | None = None) -> None:
        self.db = db
        self.pid = os.getpid() if pid is None else pid
        self.host = host or socket.gethostname()

    async def holder(self, session_id: str) -> Lease | None:
        row = await self.db.fetchone(
            "SELECT session_id, pid, host, acquired FROM session_leases WHERE session_id = ?", (session_id,)
        )
        return Lease(*row) if row else None

    def _live(self, lease: Lease) -> bool:
        if lease.host != self.host:
            return True
        return lease.pid == self.pid or pid_alive(lease.pid)

    async def acquire(self, session_id: str) -> None:
        """Take the session's lease for this process; SessionBusy when another live one has it.
        One trip to the database's thread: it is on every tab's way to its session."""

        def take(conn: sqlite3.Connection) -> None:
            row = conn.execute(
                "SELECT session_id, pid, host, acquired FROM session_leases WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            if row is not None:
                lease = Lease(*row)
                mine = lease.pid == self.pid and lease.host == self.host
                if not mine and self._live(lease):
                    where = f"pid {lease.pid}" + ("" if lease.host == self.host else f" on {lease.host}")
                    raise SessionBusy(
                        f"session {session_id} is open in another agent-tui ({where}); close it "
                        "there first, or start a new session"
                    )
            conn.execute(
                "INSERT OR REPLACE INTO session_leases (session_id, pid, host, acquired) VALUES (?, ?, ?, ?)",
                (session_id, self.pid, self.host, time.time()),
            )

        await self.db.transact(take)

    async def release(self, session_id: str) -> None:
        """Give the lease back (only if this process holds it)."""
        async with self.db.write() as conn:
            await conn.execute(
                "DELETE FROM session_leases WHERE session_id = ? AND pid = ? AND host = ?",
                (session_id, self.pid, self.host),
            )

    async def release_all(self) -> None:
        """Every lease of this process (the app is closing)."""
        async with self.db.write() as conn:
            await conn.execute("DELETE FROM session_leases WHERE pid = ? AND host = ?", (self.pid, self.host))
