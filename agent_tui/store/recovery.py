"""`agent-tui db recover`: every row a damaged database still yields, copied into a new file.

It copies table by table, in creation order so references resolve, stepping over unreadable
pages by rowid, into a database made with the current schema, leaving the damaged file as it
was. Search indexes are rebuilt rather than copied. Apart from health.py because it builds the
new file with `open_database`, which itself runs health's quick check: one module each way.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.store.db import open_database
from agent_tui.store.errors import StoreError
from agent_tui.store.health import connect_read_only


@dataclass
class RecoverReport:
    """What `recover` copied, per table, and what it could not read."""

    source: Path
    target: Path
    copied: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    """Rows that could not be read (counted by the rowids skipped) or no longer fit (their
    session was on a lost page)."""


def default_target(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return path.with_name(f"{path.stem}.recovered-{stamp}{path.suffix or '.db'}")


async def recover(path: Path, target: Path) -> RecoverReport:
    """Copy every readable row of `path` into a new agent-tui database at `target`."""
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
    src = connect_read_only(source)
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
