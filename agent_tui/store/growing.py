"""An output that keeps growing: a background command's blob, readable while it is written.

A finished output is written in ~1 MB slices and only then marked complete, so a reader never
sees half of it. A background command may run for hours and the model must be able to read its
output meanwhile (`read_result`, `grep_result`, `recall`), so this blob is readable from its
first byte: its row is complete from the start, and each flush appends the chunks that arrived
and updates the size and line count in the same transaction. A flush happens when a chunk fills,
shortly after data arrives (`FLUSH_DELAY`), and whenever a reader resolves the ref (the
ResultStore asks every open growing blob to flush first), so readers see everything that has
arrived, not what a timer last wrote.

A chunk cut before its line ends is allowed (chunks.py: the next chunk starts inside that line
and carries its number), so any flush point keeps line numbering exact. If agent-tui dies, what
was flushed stays readable.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3

from agent_tui.base.messages import ResultRef
from agent_tui.store.chunks import FTS_LIMIT, Chunker, compress, preview, to_bytes
from agent_tui.store.db import Database
from agent_tui.store.writer import INSERT_CHUNK, insert_blob

log = logging.getLogger(__name__)

FLUSH_DELAY = 0.2
"""Seconds data may wait in memory before it is written (a reader's resolve flushes sooner)."""


class GrowingBlob:
    """One output appended to as it arrives; readable by its ref all along."""

    def __init__(self, db: Database, blob_id: str, session_id: str, tool_name: str, chunk_size: int) -> None:
        self.db = db
        self.id = blob_id
        self.session_id = session_id
        self.tool_name = tool_name
        self._chunker = Chunker(chunk_size)
        self._pending: list[bytes] = []
        self._head = b""
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Task[None] | None = None
        self.closed = False

    @classmethod
    async def open(
        cls, db: Database, session_id: str, tool_name: str, tool_call_id: str | None, chunk_size: int
    ) -> GrowingBlob:
        async with db.write() as conn:
            blob_id = await insert_blob(conn, session_id, tool_name, tool_call_id, True)
        return cls(db, blob_id, session_id, tool_name, chunk_size)

    @property
    def byte_size(self) -> int:
        """Bytes written to the store so far."""
        return self._chunker.byte_size

    @property
    def received(self) -> int:
        """Bytes received so far (written or waiting for the next flush)."""
        return self._chunker.byte_size + sum(len(p) for p in self._pending)

    def ref(self) -> ResultRef:
        return ResultRef(
            self.id, self._chunker.byte_size, self._chunker.line_count, self.tool_name, self.session_id
        )

    def append(self, data: bytes | str) -> None:
        """Take bytes that arrived; they are written within FLUSH_DELAY (or at the next read)."""
        if self.closed or not data:
            return
        raw = to_bytes(data)
        if not self._head:
            self._head = raw[:4096]
        self._pending.append(raw)
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(FLUSH_DELAY, self._flush_soon)

    def _flush_soon(self) -> None:
        self._timer = None
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush_logged())

    async def _flush_logged(self) -> None:
        try:
            await self.flush()
        except (sqlite3.Error, ValueError, OSError):
            log.exception("could not write the growing output %s", self.id)

    async def flush(self) -> None:
        """Write everything received so far (a reader's view is then up to date)."""
        async with self._lock:
            if not self._pending:
                return
            data, self._pending = b"".join(self._pending), []
            chunks = self._chunker.feed(data) + self._chunker.finish()
            rows = []
            for c in chunks:
                codec, packed = compress(c.data)
                indexed = None if b"\x00" in c.data or c.start_byte >= FTS_LIMIT else 0
                rows.append(
                    (
                        self.id,
                        c.seq,
                        c.first_line,
                        c.end_line,
                        c.start_byte,
                        len(c.data),
                        codec,
                        indexed,
                        packed,
                    )
                )
            async with self.db.write() as conn:
                await conn.executemany(INSERT_CHUNK, rows)
                await conn.execute(
                    "UPDATE tool_result_blobs SET byte_size = ?, line_count = ?, first_line = ? WHERE id = ?",
                    (self._chunker.byte_size, self._chunker.line_count, preview(self._head), self.id),
                )

    async def close(self) -> ResultRef:
        """Write what is left; no more appends."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        await self.flush()
        self.closed = True
        return self.ref()
