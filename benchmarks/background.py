"""A background command's growing output vs a foreground command's streamed one.

Run: .venv/bin/python benchmarks/background.py
The same output (20 MB of log lines, in 64 KB pieces as bash reads them) is stored through the
foreground path (a spool file, complete at the end, chunks later) and through a growing blob
(store/growing.py: flushed as it arrives, readable all along), and a reader resolves the growing
ref every 2 MB (which flushes first). Baseline: the foreground path; the ratio is growing / it.
Also: chunks written, and the median time of a reader's resolve+read of the newest 50 lines.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tui.store import open_store  # noqa: E402 - imported after the sys.path set-up above

PIECE = 64 * 1024
TOTAL = 20 << 20


def pieces() -> list[bytes]:
    line = b"2026-11-25 22:59:01 INFO GET /api/cart?id=1234 200 12ms user=alice\n"
    block = line * (PIECE // len(line) + 1)
    return [block[:PIECE]] * (TOTAL // PIECE)


async def main() -> None:
    data = pieces()
    with tempfile.TemporaryDirectory() as tmp:
        store = await open_store(Path(tmp) / "b.db")
        session = await store.sessions.create(tmp, "m")

        async def stream():
            for piece in data:
                yield piece

        t = time.perf_counter()
        ref = await store.results.offload(session.id, "bash", "c1", stream())
        foreground = time.perf_counter() - t

        reads: list[float] = []
        t = time.perf_counter()
        blob = await store.results.open_growing(session.id, "bash", "c2")
        for i, piece in enumerate(data, 1):
            blob.append(piece)
            await asyncio.sleep(0)  # the pump yields between reads of the pipe
            if i % 32 == 0:
                r = time.perf_counter()
                info = (await store.results.resolve(blob.id)).ref
                await store.results.read_lines(blob.id, max(1, info.line_count - 49), 50)
                reads.append(time.perf_counter() - r)
        grown = await store.results.close_growing(blob)
        growing = time.perf_counter() - t
        chunks = {}
        for name, blob_id in (("foreground", ref.id), ("growing", grown.id)):
            row = await store.db.fetchone("SELECT count(*) FROM blob_chunks WHERE blob_id = ?", (blob_id,))
            chunks[name] = row[0]
        assert grown.byte_size == ref.byte_size == TOTAL // PIECE * PIECE
        assert grown.line_count == ref.line_count
        await store.close()
    print(f"{'path':<34}{'time':>10}{'MB/s':>9}{'chunks':>8}{'ratio':>8}")
    mb = TOTAL / (1 << 20)
    print(
        f"{'foreground write_stream (baseline)':<34}{foreground * 1000:>8.0f}ms{mb / foreground:>9.0f}{chunks['foreground']:>8}{1:>8.2f}"
    )
    print(
        f"{'growing blob + reads every 2 MB':<34}{growing * 1000:>8.0f}ms{mb / growing:>9.0f}{chunks['growing']:>8}{growing / foreground:>8.2f}"
    )
    print(
        f"reader resolve+tail(50) while growing: median {statistics.median(reads) * 1000:.1f} ms, max {max(reads) * 1000:.1f} ms ({len(reads)} reads)"
    )


if __name__ == "__main__":
    asyncio.run(main())
