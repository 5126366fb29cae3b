"""Benchmark of the quick check on open: `open_store` on databases of growing size, with the
check (now: `quick_check` of every table but the output chunks) against without it (before),
and what a whole-file `PRAGMA quick_check` would cost, measured in the same run.

Run: .venv/bin/python benchmarks/db_health.py   (about 30 s; uses a temp directory)

The check reads every page once, so its cost grows with the file; the page cache is warm after
the first open (as it is when agent-tui starts right after a previous run).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.store import db as db_mod
from agent_tui.store import open_store


async def fill(path: Path, megabytes: int) -> None:
    store = await open_store(path)
    session = await store.sessions.create("/p", "m")
    for i in range(megabytes):
        # Hex of random bytes: compresses about 2:1, like real logs do.
        text = "\n".join(os.urandom(64).hex() for _ in range(8192))
        await store.results.offload(session.id, "bash", f"c{i}", text)
    await store.close()


async def open_time(path: Path, check: bool, runs: int = 5) -> float:
    original = db_mod.quick_check

    async def skip(conn, p) -> None:
        return None

    db_mod.quick_check = original if check else skip  # type: ignore[assignment]
    times = []
    try:
        for _ in range(runs):
            start = time.perf_counter()
            store = await open_store(path)
            times.append(time.perf_counter() - start)
            await store.close()
    finally:
        db_mod.quick_check = original
    return statistics.median(times)


def whole_file_check(path: Path) -> float:
    conn = sqlite3.connect(path)
    start = time.perf_counter()
    conn.execute("PRAGMA quick_check").fetchall()
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed


async def main() -> None:
    print(
        f"{'database':>12} {'open + check':>13} {'open (before)':>14} {'ratio':>6} "
        f"{'check ms':>9} {'whole-file quick_check':>23}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in (8, 64, 256):
            path = Path(tmp) / f"d{megabytes}.db"
            await fill(path, megabytes)
            size = path.stat().st_size >> 20
            await open_time(path, True, runs=1)  # warm the page cache
            with_check = await open_time(path, True)
            without = await open_time(path, False)
            whole = whole_file_check(path)
            print(
                f"{size:>9} MB {with_check * 1000:>10.1f} ms {without * 1000:>11.1f} ms "
                f"{with_check / without:>6.2f} {(with_check - without) * 1000:>9.1f} {whole * 1000:>20.1f} ms"
            )


if __name__ == "__main__":
    asyncio.run(main())
