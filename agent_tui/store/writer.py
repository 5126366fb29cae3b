"""Storing a tool output whole: cut into slices, chunk and compress them in worker threads,
insert them in order.

Each ~1 MB slice is chunked and compressed on the pool independently (zlib releases the GIL, so
two slices compress at once while the connection's thread inserts earlier ones); an `Assembler`
then shifts each slice's local sequence, line and byte numbers by what came before. An output
goes in one transaction: a small one as it is stored, a big one (from memory or streamed by bash)
later, from its spool file (store/spool.py).
"""

from __future__ import annotations

import asyncio
import logging
import mmap
import sqlite3
import time
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from contextlib import asynccontextmanager
from dataclasses import dataclass

import aiosqlite

from agent_tui.base.messages import ResultRef
from agent_tui.store.chunks import FTS_LIMIT, Chunker, compress, preview, to_bytes
from agent_tui.store.db import Database
from agent_tui.store.errors import SessionNotFound
from agent_tui.store.refs import new_ref_id

log = logging.getLogger(__name__)

SLICE_BYTES = 1 << 20
"""Raw bytes chunked and compressed together by one worker."""
INLINE_INDEX_BYTES = 64 * 1024
"""Outputs from memory past this size go through the spool (store/spool.py): a file now, the
chunks after the request. Every output is indexed for recall by the background indexer."""

Buffer = bytes | mmap.mmap
"""An output's bytes: in memory, or a spool file mapped (store/spool.py)."""

INSERT_CHUNK = (
    "INSERT INTO blob_chunks (blob_id, seq, first_line, end_line, start_byte, raw_size, codec, "
    "indexed, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


@dataclass(frozen=True)
class Packed:
    """One slice, chunked and compressed, numbered as if it were the whole output."""

    chunks: list[tuple[int, int, int, int, int, bool, int, bytes]]
    """(seq, first_line, end_line, start_byte, raw_size, binary, codec, data) per chunk."""
    newlines: int
    """Newlines in the slice."""
    size: int
    """Raw bytes in the slice."""
    ends_with_newline: bool
    head: bytes
    """The slice's first ≤ 4 KB (for the listing's first line)."""


def pack(data: Buffer, start: int, end: int, chunk_size: int) -> Packed:
    """Chunk and compress `data[start:end]` (runs on a worker thread)."""
    chunker = Chunker(chunk_size)
    piece = data[start:end]
    chunks = chunker.feed(piece) + chunker.finish()
    rows = []
    for c in chunks:
        codec, packed = compress(c.data)
        rows.append(
            (c.seq, c.first_line, c.end_line, c.start_byte, len(c.data), b"\x00" in c.data, codec, packed)
        )
    return Packed(rows, chunker.newlines, len(piece), chunker.ends_with_newline, piece[:4096])


def slices(data: Buffer, size: int = SLICE_BYTES) -> list[tuple[int, int]]:
    """Bounds of ~`size` slices of `data`, each ending after a newline when one is near."""
    out, pos, total = [], 0, len(data)
    while pos < total:
        end = min(pos + size, total)
        if end < total:
            cut = data.rfind(b"\n", pos + size // 2, end)
            end = cut + 1 if cut >= 0 else end
        out.append((pos, end))
        pos = end
    return out


class Assembler:
    """Places packed slices one after another in one blob."""

    def __init__(self, blob_id: str) -> None:
        self.blob_id = blob_id
        self.seq = self.newlines = self.byte_size = 0
        self.ends_with_newline = False
        self.head = b""

    def rows(self, packed: Packed) -> list[tuple[str, int, int, int, int, int, int, int | None, bytes]]:
        lines, offset = self.newlines, self.byte_size
        rows = [
            (
                self.blob_id,
                self.seq + seq,
                first + lines,
                end + lines,
                start + offset,
                raw,
                codec,
                None if binary or start + offset >= FTS_LIMIT else 0,
                data,
            )
            for seq, first, end, start, raw, binary, codec, data in packed.chunks
        ]
        if not self.byte_size:
            self.head = packed.head
        self.seq += len(packed.chunks)
        self.newlines += packed.newlines
        self.byte_size += packed.size
        if packed.size:
            self.ends_with_newline = packed.ends_with_newline
        return rows

    @property
    def line_count(self) -> int:
        if not self.byte_size:
            return 0
        return self.newlines + (0 if self.ends_with_newline else 1)


async def insert_blob(
    conn: aiosqlite.Connection, session_id: str, tool_name: str, tool_call_id: str | None, complete: bool
) -> str:
    async with conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)) as cur:
        if await cur.fetchone() is None:
            raise SessionNotFound(
                f"no session {session_id}: create the session before storing its tool outputs"
            )
    for _ in range(5):
        blob_id = new_ref_id()
        try:
            await conn.execute(
                "INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, "
                "complete, created) VALUES (?, ?, ?, ?, ?, ?)",
                (blob_id, session_id, tool_name, tool_call_id, int(complete), time.time()),
            )
            return blob_id
        except sqlite3.IntegrityError:
            log.warning("ref id collision on %s; drawing another", blob_id)
    raise sqlite3.IntegrityError("could not draw a free ref id")


async def finish_blob(conn: aiosqlite.Connection, done: Assembler) -> None:
    await conn.execute(
        "UPDATE tool_result_blobs SET byte_size = ?, line_count = ?, first_line = ?, "
        "complete = 1 WHERE id = ?",
        (done.byte_size, done.line_count, preview(done.head), done.blob_id),
    )


async def write_whole(
    db: Database,
    pool: Executor,
    session_id: str,
    tool_name: str,
    tool_call_id: str | None,
    content: str | bytes,
    chunk_size: int,
) -> ResultRef:
    async with packed_slices(pool, to_bytes(content), chunk_size) as packing:
        async with db.write() as conn:
            done = Assembler(await insert_blob(conn, session_id, tool_name, tool_call_id, True))
            await fill_blob(conn, done, packing)
    return ResultRef(done.blob_id, done.byte_size, done.line_count, tool_name, session_id)


@asynccontextmanager
async def packed_slices(
    pool: Executor, data: Buffer, chunk_size: int
) -> AsyncIterator[list[asyncio.Future[Packed]]]:
    """`data`'s slices, each being chunked and compressed on `pool`; those not awaited by the
    end of the block are cancelled."""
    loop = asyncio.get_running_loop()
    packing = [loop.run_in_executor(pool, pack, data, start, end, chunk_size) for start, end in slices(data)]
    try:
        yield packing
    finally:
        for future in packing:
            future.cancel()


async def fill_blob(
    conn: aiosqlite.Connection, done: Assembler, packing: list[asyncio.Future[Packed]]
) -> None:
    """Insert the packed slices in order and mark the blob complete."""
    for future in packing:
        await conn.executemany(INSERT_CHUNK, done.rows(await future))
    await finish_blob(conn, done)
