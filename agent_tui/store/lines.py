"""Reading lines out of a chunked output without loading it: windows, head and tail.

A window read finds the chunk where its first line starts (one index seek on `end_line`), then
decompresses chunks in order only as far as the window needs. Each line is kept to at most `cap`
bytes, so a pathological 100 MB line costs time to skip, never memory.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from agent_tui.store.chunks import decompress
from agent_tui.store.db import Database

_BATCH = 8
"""Chunk rows fetched per query (compressed; each is decompressed only when reached)."""


def decode(line: bytes) -> str:
    """Display text of a stored line: invalid UTF-8 becomes U+FFFD, a trailing CR is dropped."""
    text = line.decode("utf-8", "replace")
    return text[:-1] if text.endswith("\r") else text


async def iter_lines(
    db: Database, blob_id: str, start: int, stop: int, cap: int | None = None
) -> AsyncGenerator[tuple[int, bytes], None]:
    """Yield (line number, bytes) for lines `start..stop` (1-based, inclusive) that exist.

    With `cap`, each yielded line holds at most its first `cap` bytes.
    """
    if stop < start:
        return
    row = await db.fetchone(
        "SELECT seq FROM blob_chunks WHERE blob_id = ? AND end_line >= ? ORDER BY end_line, seq LIMIT 1",
        (blob_id, start),
    )
    if row is None:
        return
    seq = row[0]
    number: int | None = None
    parts: list[bytes] = []
    kept = 0
    while True:
        rows = await db.fetchall(
            "SELECT seq, first_line, codec, data FROM blob_chunks "
            "WHERE blob_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
            (blob_id, seq, _BATCH),
        )
        if not rows:
            break
        seq = rows[-1][0] + 1
        for chunk_seq, first_line, codec, data in rows:
            if number is None:
                number = first_line
            pieces = decompress(codec, data).split(b"\n")
            last = len(pieces) - 1
            for i, piece in enumerate(pieces):
                if piece and number >= start and (cap is None or kept < cap):
                    take = piece if cap is None else piece[: cap - kept]
                    parts.append(take)
                    kept += len(take)
                if i < last:  # a newline follows: the line is complete
                    if number >= start:
                        yield number, b"".join(parts)
                    number += 1
                    parts, kept = [], 0
                    if number > stop:
                        return
            if cap is not None and kept >= cap:
                # The rest of this long line is not shown: skip to where it ends.
                after = await db.fetchone(
                    "SELECT seq FROM blob_chunks WHERE blob_id = ? AND end_line > ? "
                    "ORDER BY end_line, seq LIMIT 1",
                    (blob_id, number),
                )
                if after is None:  # it is the last line
                    yield number, b"".join(parts)
                    return
                # The newline ending it is in the chunk before the first one reaching past
                # it, or in that one (when the line does not end on a chunk boundary).
                if after[0] - 1 > chunk_seq:
                    seq = after[0] - 1
                    break
    if number is not None and start <= number <= stop and parts:
        yield number, b"".join(parts)


async def read_window(
    db: Database, blob_id: str, start: int, count: int, cap: int | None = None
) -> list[tuple[int, bytes]]:
    return [item async for item in iter_lines(db, blob_id, start, start + count - 1, cap)]


async def tail_start(db: Database, blob_id: str, line_count: int, want_bytes: int) -> int:
    """First line of a tail holding at least about `want_bytes` (found from chunk sizes only)."""
    have = 0
    first = line_count
    below: int | None = None
    while have < want_bytes:
        # From the last chunk backwards, 64 at a time: one very long line spans many chunks.
        rows = await db.fetchall(
            "SELECT seq, first_line, raw_size FROM blob_chunks WHERE blob_id = ? AND seq < ? "
            "ORDER BY seq DESC LIMIT 64",
            (blob_id, below if below is not None else 1 << 62),
        )
        for seq, first_line, raw_size in rows:
            have += raw_size
            # Lines after first_line are whole inside the chunks read so far; first_line itself
            # is whole only when the chunk is the output's first.
            first = first_line if seq == 0 else first_line + 1
            if have >= want_bytes:
                break
        if len(rows) < 64:
            break
        below = rows[-1][0]
    return max(1, min(first, line_count))
