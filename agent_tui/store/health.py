"""Database health: a quick check on open, a full check, and salvage into a new file.

A damaged page (a disk error, a copy taken mid-write, a crash on a file system that lies about
fsync) used to go unnoticed until some read failed deep inside a turn. Opening now runs
`PRAGMA quick_check` on every table but the bulk output chunks (benchmarks/db_health.py: the
whole-file check costs ~1.3 ms per MB, 230 ms at 177 MB warm, seconds cold) and refuses a damaged file with one line that names the way out:
`agent-tui db check` (what is wrong, from `integrity_check`) and `agent-tui db recover`, which
copies every row it can still read — table by table, in creation order so references resolve,
stepping over unreadable pages by rowid — into a new database, leaving the damaged file as it
was. Search indexes are rebuilt rather than copied.

These run on plain `sqlite3` in a worker thread: they must open files `open_database` refuses.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.store.errors import StoreError

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


@dataclass
class RecoverReport:
    """What `recover` copied, per table, and what it could not read."""

    source: Path
    target: Path
    copied: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    """Rows that could not be read (counted by the rowids skipped) or no longer fit (their
    session was on a lost page)."""


def damaged_message(path: Path, problem: str) -> str:
    return (
        f"{path} is damaged ({problem}); nothing was changed. See `agent-tui db check --db {path}`, "
        f"then `agent-tui db recover --db {path}` to copy every readable session into a new file"
    )


def _connect_ro(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StoreError(f"{path}: no such database file")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _check(path: Path, pragma: str) -> HealthReport:
    try:
        conn = _connect_ro(path)
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
    from agent_tui.store.errors import CorruptDatabase

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


def default_target(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return path.with_name(f"{path.stem}.recovered-{stamp}{path.suffix or '.db'}")


async def recover(path: Path, target: Path) -> RecoverReport:
    """Copy every readable row of `path` into a new agent-tui database at `target`."""
    from agent_tui.store.db import open_database

    path, target = Path(path).absolute(), Path(target).absolute()
    if target.exists():
        raise StoreError(f"{target} already exists; choose another --to path")
    fresh = await open_database(target)  # the current schema, every migration applied
    await fresh.close()
    return await asyncio.to_thread(_salvage, path, target)


_SKIP = ("sqlite_", "migrations", "blob_fts")
"""Internal tables, the migration log (the new file has its own) and the search index (rebuilt)."""


def _salvage(source: Path, target: Path) -> RecoverReport:
    report = RecoverReport(source, target)
    src = _connect_ro(source)
    dst = sqlite3.connect(str(target), isolation_level=None)
    try:
        dst.execute("PRAGMA foreign_keys = ON")
        tables = [
            row[0]
            for row in dst.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
            if not row[0].startswith(_SKIP)
        ]
        for table in tables:
            copied, lost = _copy_table(src, dst, table)
            report.copied[table] = copied
            if lost:
                report.lost[table] = lost
    finally:
        src.close()
        dst.close()
    return report


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]


def _copy_table(src: sqlite3.Connection, dst: sqlite3.Connection, table: str) -> tuple[int, int]:
    try:
        wanted = _columns(dst, table)
        have = set(_columns(src, table))
    except sqlite3.DatabaseError:
        return 0, 1
    cols = [c for c in wanted if c in have]
    if not cols:
        return 0, 0
    try:
        top = src.execute(f'SELECT max(rowid) FROM "{table}"').fetchone()[0] or 0
    except sqlite3.DatabaseError:
        top = 1 << 40  # the table's b-tree itself is damaged: probe until nothing is left
    names = ", ".join(f'"{c}"' for c in cols)
    select = f'SELECT rowid, {names} FROM "{table}" WHERE rowid > ? ORDER BY rowid'
    insert = f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({", ".join("?" * len(cols))})'
    # Chunks are re-indexed for recall in the new file (its search index starts empty).
    indexed = cols.index("indexed") if table == "blob_chunks" and "indexed" in cols else None
    copied = lost = 0
    last, step, failures = 0, 1, 0
    dst.execute("BEGIN")
    gap_from: int | None = None
    """The last rowid read before an unreadable page: rowids up to the next read are lost."""
    while last < top and failures < 64:
        got = 0
        try:
            # Row by row: the rows before an unreadable page are kept, not the batch dropped.
            for row in src.execute(select, (last,)):
                got += 1
                if gap_from is not None:
                    lost += row[0] - gap_from - 1
                    gap_from = None
                last = row[0]
                values = list(row[1:])
                if indexed is not None:
                    values[indexed] = 0
                try:
                    dst.execute(insert, values)
                    copied += 1
                except sqlite3.Error:  # its session was lost with the damaged page
                    lost += 1
        except sqlite3.DatabaseError:
            # An unreadable page: step over rowids, further each time, until reads work again.
            if gap_from is None:
                gap_from = last
            failures += 1
            last += step
            step = min(step * 2, 1 << 20)
            continue
        if not got:
            break
        step, failures = 1, 0
    if gap_from is not None:  # the damage reached the end of the table
        lost += max(top - gap_from, 1)
    dst.execute("COMMIT")
    return copied, lost


def remove_partial(target: Path) -> None:
    """Delete a half-written recovery file (and its WAL) after a failure."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(f"{target}{suffix}")
        except OSError:
            pass
