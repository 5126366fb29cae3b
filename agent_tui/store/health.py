"""Database health: a quick check on open and a full check.

A damaged page (a disk error, a copy taken mid-write, a crash on a file system that lies about
fsync) used to go unnoticed until some read failed deep inside a turn. Opening now runs
`PRAGMA quick_check` on every table but the bulk output chunks (benchmarks/db_health.py: the
whole-file check costs ~1.3 ms per MB, 230 ms at 177 MB warm, seconds cold) and refuses a damaged file with one line that names the way out:
`agent-tui db check` (what is wrong, from `integrity_check`) and `agent-tui db recover`
(store/recovery.py).

The checks run on plain `sqlite3` in a worker thread: they must read files `open_database` refuses.
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.store.errors import CorruptDatabase, StoreError

if TYPE_CHECKING:
    import aiosqlite


@dataclass(frozen=True)
class HealthReport:
    """What `integrity_check` (or `quick_check`) said about one file."""

    path: Path
    problems: tuple[str, ...]
    """Empty when the file is healthy."""

    @property
    def ok(self) -> bool:
        return not self.problems


def damaged_message(path: Path, problem: str) -> str:
    return (
        f"{path} is damaged ({problem}); nothing was changed. See `agent-tui db check --db {path}`, "
        f"then `agent-tui db recover --db {path}` to copy every readable session into a new file"
    )


def connect_read_only(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StoreError(f"{path}: no such database file")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _check(path: Path, pragma: str) -> HealthReport:
    try:
        conn = connect_read_only(path)
    except sqlite3.Error as exc:
        return HealthReport(path, (str(exc),))
    try:
        rows = [str(row[0]) for row in conn.execute(f"PRAGMA {pragma}")]
    except sqlite3.DatabaseError as exc:
        rows = [str(exc)]
    finally:
        conn.close()
    return HealthReport(path, () if rows == ["ok"] else tuple(rows))


BULK_TABLES = ("blob_chunks", "blob_fts")
"""Tables holding output bytes (most of the file): left to `db check`, so the check on open
stays a few milliseconds however much output is stored. A damaged chunk shows as a read error
of that one output; `db check` finds it."""


async def quick_check(conn: aiosqlite.Connection, path: Path) -> None:
    """Raise CorruptDatabase naming the way out when `PRAGMA quick_check` finds a problem in the
    sessions, transcripts, snapshots or output index (every table but the bulk ones)."""

    try:
        async with conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ) as cur:
            tables = [str(row[0]) for row in await cur.fetchall()]
        rows = ["ok"]
        for table in tables:
            if table.startswith(BULK_TABLES):
                continue
            async with conn.execute(f'PRAGMA quick_check("{table}")') as cur:
                rows = [str(row[0]) for row in await cur.fetchall()]
            if rows != ["ok"]:
                break
    except sqlite3.DatabaseError as exc:
        rows = [str(exc)]
    if rows != ["ok"]:
        raise CorruptDatabase(damaged_message(path, rows[0]))


async def check(path: Path) -> HealthReport:
    """The full `integrity_check` of the file at `path` (read-only)."""
    return await asyncio.to_thread(_check, Path(path), "integrity_check")
