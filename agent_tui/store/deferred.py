"""Storing a big output held in memory without making the next request wait for zlib and FTS.

A tool that did not stream its output into the store (an MCP result, grep, a task's answer)
hands the loop the whole text. Before the model may see the output's ref, the output must be
stored so that `read_result` / `grep_result` can serve it even if the process dies right after
the request leaves: that is the one thing the request waits for. It is cheap — the text is cut
into line-aligned chunks and written raw (codec PENDING) in one transaction, which SQLite's WAL
makes durable against a crash of the process at COMMIT. What is expensive is deferred:
compressing the chunks and indexing them for recall both happen in the background indexer
(store/recall.py), a couple of chunks per short transaction, after the request is on its way.
A chunk is read the same whether it is still raw or already compressed, and work the indexer
did not finish before exit is picked up on the next open.

Chunks the indexer never takes (binary ones, and those past the first 16 MB, which recall does
not index) are compressed here, before the COMMIT, as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Executor

from agent_tui.messages import ResultRef
from agent_tui.store.chunks import FTS_LIMIT, PENDING, Chunker, compress
from agent_tui.store.db import Database
from agent_tui.store.writer import INSERT_CHUNK, Assembler, Packed, finish_blob, insert_blob


def pack_raw(data: bytes, chunk_size: int) -> Packed:
    """Chunk `data`; chunks recall will index stay raw (PENDING), the others are compressed."""
    chunker = Chunker(chunk_size)
    rows = []
    for c in chunker.feed(data) + chunker.finish():
        binary = b"\x00" in c.data
        codec, stored = (PENDING, c.data) if not binary and c.start_byte < FTS_LIMIT else compress(c.data)
        rows.append((c.seq, c.first_line, c.end_line, c.start_byte, len(c.data), binary, codec, stored))
    return Packed(rows, chunker.newlines, len(data), chunker.ends_with_newline, data[:4096])


async def write_raw(
    db: Database,
    session_id: str,
    tool_name: str,
    tool_call_id: str | None,
    data: bytes,
    chunk_size: int,
) -> ResultRef:
    """Store `data` whole now, raw; compression and indexing follow in the background."""
    # Cutting a few MB into chunks is a few ms of pure Python: off the event loop all the same.
    packed = await asyncio.to_thread(pack_raw, data, chunk_size)
    async with db.write() as conn:
        done = Assembler(await insert_blob(conn, session_id, tool_name, tool_call_id, True))
        await conn.executemany(INSERT_CHUNK, done.rows(packed))
        await finish_blob(conn, done)
    return ResultRef(done.blob_id, done.byte_size, done.line_count, tool_name, session_id)


async def compressed(db: Database, pool: Executor, ids: Sequence[int]) -> list[tuple[int, bytes, int]]:
    """(codec, data, id) for the chunks among `ids` still stored raw, compressed on `pool`; the
    caller writes them in the transaction that indexes the chunks."""
    marks = ",".join("?" * len(ids))
    rows = await db.fetchall(
        f"SELECT id, data FROM blob_chunks WHERE id IN ({marks}) AND codec = ?", (*ids, PENDING)
    )
    if not rows:
        return []
    loop = asyncio.get_running_loop()
    packed = await asyncio.gather(*(loop.run_in_executor(pool, compress, bytes(data)) for _, data in rows))
    return [(codec, stored, chunk_id) for (chunk_id, _), (codec, stored) in zip(rows, packed, strict=True)]


RECOMPRESS = f"UPDATE blob_chunks SET codec = ?, data = ? WHERE id = ? AND codec = {PENDING}"
"""Writes one `compressed` result; a chunk deleted or compressed meanwhile is left alone."""
