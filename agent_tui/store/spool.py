"""A big output, stored so that the next request need not wait for SQLite.

A tool that did not stream its output into the store (an MCP result, grep) hands the loop the
whole text; bash streams it (`store_stream`: the pieces go to the file as they arrive, and its
ends are kept in memory for the view, store/kept.py). Its ref may reach the model only once the
output would survive a crash of the process right after the request, so something durable must happen first — but chunking,
compressing and inserting 5 MB into SQLite costs ~100 ms, and writing it uncompressed costs
more (measured: the database's own page writes dominate). Writing the bytes to one plain file
costs a few ms, and is as durable against a crash of the process as a WAL commit with
synchronous = NORMAL: the kernel holds both.

So the output goes to `<db>-spool/<ref id>`, then its row (size, line count, first line, no
chunks yet) is committed, then the ref is returned. The chunks follow in the background once the
store is idle (the request goes out first; a burst of steps is not slowed by their compression),
compressed outside the write lock and inserted in one transaction; then the file is removed. Anything
that reads the output by its ref first waits for (or, in another process or after a crash, does)
that ingest, so every reader sees it whole. On open, files whose row exists are ingested; a file
without a row is one whose commit never happened, removed once it is old enough that no other
process can still be writing it.
"""

from __future__ import annotations

import asyncio
import logging
import mmap
import os
import time
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from pathlib import Path

from agent_tui.base.messages import ResultRef
from agent_tui.store.chunks import preview, to_bytes
from agent_tui.store.db import Database
from agent_tui.store.errors import SessionNotFound
from agent_tui.store.kept import KeptEnds
from agent_tui.store.recall import IDLE_GAP, START_DELAY, Indexer
from agent_tui.store.refs import new_ref_id
from agent_tui.store.writer import INLINE_INDEX_BYTES, Assembler, fill_blob, packed_slices, write_whole

log = logging.getLogger(__name__)

INGEST_DELAY = 0.3
"""Seconds before the chunks are written, so the request built right after goes out first."""
ORPHAN_AGE = 3600.0
"""A spool file without its row is removed only past this age (another process may be
between writing its file and committing its row)."""


class UnsafeSpool(OSError):
    """The spool folder is not one only this user can write (a link, another user's folder): the
    output goes straight into the database instead."""


def _own_folder(folder: Path) -> int:
    """A descriptor of `folder`, made 0700 if new; UnsafeSpool when it is a link or not ours (a
    folder planted beside a shared database would let another user read or swap outputs)."""
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise UnsafeSpool(f"{folder} is not a folder of ours ({exc.strerror})") from None
    if os.fstat(fd).st_uid != os.geteuid():
        os.close(fd)
        raise UnsafeSpool(f"{folder} belongs to another user")
    os.fchmod(fd, 0o700)
    return fd


def _write_file(path: Path, data: bytes) -> None:
    fd = _create(path)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _map(path: Path) -> mmap.mmap | None:
    """The file's bytes, mapped (None for an empty file, which cannot be mapped)."""
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return None
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def _create(path: Path) -> int:
    """A new 0600 file in a spool folder of ours, never through a link (UnsafeSpool otherwise)."""
    folder = _own_folder(path.parent)
    try:
        return os.open(path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=folder)
    finally:
        os.close(folder)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _is_ref(name: str) -> bool:
    """Only a ref id names a spool file (never a path: `..` or `/` cannot reach the folder)."""
    return name.startswith("r_") and name[2:].isalnum()


class Spool:
    """Outputs whose bytes are in a file and whose chunks are still to be written."""

    def __init__(self, db: Database, pool: Executor, indexer: Indexer, chunk_size: int) -> None:
        self.db = db
        self._pool = pool
        self._indexer = indexer
        self.chunk_size = chunk_size
        """Set by the ResultStore before each store (tests shrink it)."""
        self.folder = Path(f"{db.path}-spool")
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._hurry: dict[str, asyncio.Event] = {}
        self._one_at_a_time = asyncio.Lock()
        """Backlogged ingests take turns: one output's compressed chunks in memory at a time."""

    async def store(
        self, session_id: str, tool_name: str, tool_call_id: str | None, data: bytes
    ) -> ResultRef:
        """Durable now (file + row); the chunks follow in the background."""
        blob_id = new_ref_id()
        path = self.folder / blob_id
        await asyncio.to_thread(_write_file, path, data)
        lines = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
        await self._commit_row(blob_id, session_id, tool_name, tool_call_id, len(data), lines, data[:4096])
        self._start(blob_id, None, INGEST_DELAY)  # read back from the page cache, not held here
        return ResultRef(blob_id, len(data), lines, tool_name, session_id)

    async def store_stream(
        self, session_id: str, tool_name: str, tool_call_id: str | None, stream: AsyncIterator[bytes]
    ) -> tuple[ResultRef, KeptEnds]:
        """A streamed output: a small one stored at once; a bigger one written to its file as it
        arrives and durable once it ends (file + row), its chunks following in the background.
        Also what was kept of its ends, for the view."""
        kept = KeptEnds()
        early: list[bytes] = []
        blob_id = new_ref_id()
        path = self.folder / blob_id
        fd: int | None = None
        unsafe = False
        try:
            async for piece in stream:
                data = to_bytes(piece)
                kept.add(data)
                if fd is not None:
                    _write_all(fd, data)  # into the page cache: microseconds per piece
                    continue
                early.append(data)
                if kept.byte_size > INLINE_INDEX_BYTES and not unsafe:
                    try:
                        fd = _create(path)
                    except UnsafeSpool as exc:
                        # Kept in memory and stored whole at the end, like a small output.
                        log.warning("%s; stored in the database directly", exc)
                        unsafe = True
                        continue
                    _write_all(fd, b"".join(early))
                    early = []
        except BaseException:
            # A producer that fails or is cancelled leaves nothing behind.
            if fd is not None:
                os.close(fd)
                path.unlink(missing_ok=True)
            raise
        if fd is None:
            ref = await write_whole(
                self.db, self._pool, session_id, tool_name, tool_call_id, b"".join(early), self.chunk_size
            )
            return ref, kept
        os.close(fd)
        first = bytes(kept.head[:4096])
        await self._commit_row(
            blob_id, session_id, tool_name, tool_call_id, kept.byte_size, kept.line_count, first
        )
        self._start(blob_id, None, INGEST_DELAY)
        return ResultRef(blob_id, kept.byte_size, kept.line_count, tool_name, session_id), kept

    async def _commit_row(
        self,
        blob_id: str,
        session_id: str,
        tool_name: str,
        tool_call_id: str | None,
        size: int,
        lines: int,
        first: bytes,
    ) -> None:
        """The output's row, complete, without chunks yet: after this commit its ref is safe to
        hand out (the file holds the bytes). On failure the file is removed."""
        path = self.folder / blob_id
        try:
            async with self.db.write() as conn:
                async with conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)) as cur:
                    if await cur.fetchone() is None:
                        raise SessionNotFound(
                            f"no session {session_id}: create the session before storing its tool outputs"
                        )
                await conn.execute(
                    "INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, byte_size, "
                    "line_count, first_line, complete, created) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
                    (blob_id, session_id, tool_name, tool_call_id, size, lines, preview(first), time.time()),
                )
        except BaseException:
            path.unlink(missing_ok=True)
            raise

    def _start(self, blob_id: str, data: bytes | None, delay: float) -> None:
        hurry = self._hurry[blob_id] = asyncio.Event()
        task = asyncio.create_task(
            self._ingest_later(blob_id, data, delay, hurry), name=f"agent-tui-spool-{blob_id}"
        )
        self._tasks[blob_id] = task

    async def _ingest_later(
        self, blob_id: str, data: bytes | None, delay: float, hurry: asyncio.Event
    ) -> None:
        try:
            if delay:
                try:
                    await asyncio.wait_for(hurry.wait(), delay)
                except TimeoutError:
                    pass
            # Compressing 5 MB takes ~200 ms of CPU: done while the turn's connection is quiet
            # (the model thinking, the user reading), never beside a step (a reader hurries it).
            await self.db.until_idle(IDLE_GAP, hurry)
            async with self._one_at_a_time:
                await self._ingest(blob_id, data)
        except Exception:
            log.exception("could not store the chunks of %s; its file stays for the next open", blob_id)
        finally:
            self._tasks.pop(blob_id, None)
            self._hurry.pop(blob_id, None)

    async def _ingest(self, blob_id: str, data: bytes | None) -> None:
        path = self.folder / blob_id
        mapped: mmap.mmap | None = None
        if data is None:
            try:
                # Mapped, not read: a 200 MB log costs page cache, not the heap.
                mapped = await asyncio.to_thread(_map, path)
            except FileNotFoundError:
                return  # another process ingested it
        try:
            source: bytes | mmap.mmap = data if data is not None else (mapped if mapped is not None else b"")
            async with packed_slices(self._pool, source, self.chunk_size) as packing:
                # Compressed before the write lock is taken: a step's writes wait only on inserts.
                await asyncio.gather(*packing)
                async with self.db.write() as conn:
                    async with conn.execute(
                        "SELECT 1 FROM tool_result_blobs WHERE id = ?", (blob_id,)
                    ) as cur:
                        alive = await cur.fetchone() is not None
                    # No row: deleted meanwhile (GC, its session removed), or not committed yet by
                    # another process; its file is then left to the sweep of old files on open.
                    if alive:
                        # Idempotent: a crash after this commit and before the unlink redoes it.
                        await conn.execute("DELETE FROM blob_chunks WHERE blob_id = ?", (blob_id,))
                        await fill_blob(conn, Assembler(blob_id), packing)
        finally:
            if mapped is not None:
                mapped.close()
        if alive:
            path.unlink(missing_ok=True)
            self._indexer.kick(delay=START_DELAY)

    async def ready(self, blob_id: str) -> None:
        """Return once the chunks of `blob_id` are in the database (at once for most refs)."""
        task = self._tasks.get(blob_id)
        if not _is_ref(blob_id):
            return
        if task is not None:
            self._hurry[blob_id].set()
            await asyncio.shield(task)
        elif (self.folder / blob_id).exists():  # left by a crash, or another process's
            await self._ingest(blob_id, None)

    async def resume(self) -> None:
        """On open: ingest the files whose row exists; remove old ones whose row never came."""
        try:
            if self.folder.exists():
                os.close(_own_folder(self.folder))
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return
        except UnsafeSpool as exc:
            log.warning("%s; its files are not read", exc)  # planted: never taken as outputs
            return
        for name in filter(_is_ref, names):
            row = await self.db.fetchone("SELECT 1 FROM tool_result_blobs WHERE id = ?", (name,))
            if row is not None:
                self._start(name, None, INGEST_DELAY)
                continue
            path = self.folder / name
            try:
                if time.time() - path.stat().st_mtime > ORPHAN_AGE:
                    path.unlink()
            except OSError:
                pass

    async def wait(self) -> None:
        """Return once every output stored here has its chunks."""
        for blob_id in list(self._tasks):
            await self.ready(blob_id)

    async def stop(self) -> None:
        """Stop the ingests not yet started; their files are ingested on the next open."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
