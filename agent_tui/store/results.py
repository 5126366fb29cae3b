"""ResultStore: every tool output stored whole, and the ways to get it back.

The model sees a view (head and tail) of a long output; `read`, `grep` and `recall` are what its
`read_result`, `grep_result` and `recall` tools call, so their errors are phrased as advice it can
act on. The UI's blob browser uses `list_blobs` and `read_lines`; export uses `iter_bytes`.

Reads are reads: only the model's own reads (`touch=True`, passed by its tools) update an
output's access statistics. Browsing in the TUI or the CLI writes nothing to the database.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from contextlib import aclosing
from datetime import timedelta

from agent_tui.base.bounded_regex import DEFAULT_BUDGET, stopped_message
from agent_tui.base.messages import ResultRef
from agent_tui.context import views
from agent_tui.store import lines as L
from agent_tui.store.chunks import CHUNK_SIZE, decompress, to_bytes
from agent_tui.store.db import Database
from agent_tui.store.errors import LineRangeError, RefNotFound
from agent_tui.store.gc import collect
from agent_tui.store.grep import compile_pattern, grep_blob
from agent_tui.store.growing import GrowingBlob
from agent_tui.store.kept import KeptEnds
from agent_tui.store.models import BlobInfo, GcReport, RecallHit, ResolvedRef
from agent_tui.store.recall import START_DELAY, Indexer, Queries, recall
from agent_tui.store.refs import build_uri, parse_ref
from agent_tui.store.spool import Spool, UnsafeSpool
from agent_tui.store.writer import INLINE_INDEX_BYTES, write_whole

log = logging.getLogger(__name__)

KEPT_OUTPUTS = 4
"""Streamed outputs whose ends stay in memory (the loop views each right after storing it)."""


class ResultStore:
    """Tool outputs of every session, chunked and compressed, searchable by recall."""

    def __init__(self, db: Database, pool: Executor, search_timeout: float = DEFAULT_BUDGET) -> None:
        self.db = db
        self._pool = pool
        self.chunk_size = CHUNK_SIZE
        """Bytes per chunk; tests shrink it to exercise chunk boundaries."""
        self.indexer = Indexer(db)
        self.spool = Spool(db, pool, self.indexer, CHUNK_SIZE)
        """Big outputs from memory whose chunks are still to be written."""
        self.search_timeout = search_timeout
        """Seconds one grep may take ([tools] search_timeout, given by the opener)."""
        self._kept: dict[str, KeptEnds] = {}
        """The ends of the last few streamed outputs: their views need no read-back."""
        self._growing: dict[str, GrowingBlob] = {}
        """Outputs still being written (background commands): flushed before any read."""

    # -- writing ---------------------------------------------------------------------------

    async def offload(
        self,
        session_id: str,
        tool_name: str,
        tool_call_id: str | None,
        content: str | bytes | AsyncIterator[bytes],
    ) -> ResultRef:
        """Store `content` whole (a str, bytes, or an async iterator of byte pieces)."""
        if isinstance(content, (str, bytes, bytearray, memoryview)):
            data = to_bytes(content)
            if len(data) > INLINE_INDEX_BYTES:
                # A file now, the chunks after the next request is out (store/spool.py).
                self.spool.chunk_size = self.chunk_size
                try:
                    return await self.spool.store(session_id, tool_name, tool_call_id, data)
                except UnsafeSpool as exc:
                    log.warning("%s; stored in the database directly", exc)
            ref = await write_whole(
                self.db, self._pool, session_id, tool_name, tool_call_id, data, self.chunk_size
            )
        else:
            # A file as it streams, the chunks after the next request; its view from memory.
            self.spool.chunk_size = self.chunk_size
            ref, kept = await self.spool.store_stream(session_id, tool_name, tool_call_id, content)
            self._kept[ref.id] = kept
            while len(self._kept) > KEPT_OUTPUTS:
                del self._kept[next(iter(self._kept))]
        self.indexer.kick(delay=START_DELAY)  # at idle, on its own connection
        return ref

    async def open_growing(self, session_id: str, tool_name: str, tool_call_id: str | None) -> GrowingBlob:
        """An output readable by its ref while it is still written (store/growing.py)."""
        blob = await GrowingBlob.open(self.db, session_id, tool_name, tool_call_id, self.chunk_size)
        self._growing[blob.id] = blob
        return blob

    async def close_growing(self, blob: GrowingBlob) -> ResultRef:
        """The output is whole: write the rest and let the indexer take it for recall."""
        try:
            return await blob.close()
        finally:
            self._growing.pop(blob.id, None)
            self.indexer.kick()

    async def wait_indexed(self) -> None:
        """Return once every stored output is searchable by `recall`."""
        await self.spool.wait()
        await self.indexer.wait()

    # -- finding ---------------------------------------------------------------------------

    async def resolve(self, ref_or_uri: str | ResultRef, session_id: str | None = None) -> ResolvedRef:
        """Look up a short id (inside `session_id` when given) or a `ctx://` URI."""
        if isinstance(ref_or_uri, ResultRef):
            parsed, session_id = parse_ref(ref_or_uri.id), None
        else:
            parsed = parse_ref(ref_or_uri)
        await self.spool.ready(parsed.ref_id)  # an output whose chunks are still on their way
        growing = self._growing.get(parsed.ref_id)
        if growing is not None:  # a running command's output: readers see all that arrived
            await growing.flush()
        row = await self.db.fetchone(
            "SELECT b.session_id, b.tool_name, b.byte_size, b.line_count, b.complete, s.project "
            "FROM tool_result_blobs b JOIN sessions s ON s.id = b.session_id WHERE b.id = ?",
            (parsed.ref_id,),
        )
        if row is None or not row[4]:
            raise RefNotFound(
                f"no stored output has ref {parsed.ref_id}; use a ref from a tool "
                'output footer, or find one with recall(query="…")'
            )
        owner, tool, size, count, _, project = row
        if parsed.is_uri and parsed.project != project:
            # The project part is a claim: checked, so a URI cannot pretend to be another's.
            raise RefNotFound(
                f"{ref_or_uri!r} names project {parsed.project!r}, but ref {parsed.ref_id} belongs to "
                f"another project; use its URI {build_uri(project, owner, parsed.ref_id)}"
            )
        resolved = ResolvedRef(ResultRef(parsed.ref_id, size, count, tool, owner), project, parsed.lines)
        wanted = parsed.session_id if parsed.is_uri else session_id
        if wanted is not None and wanted != owner and not parsed.is_uri:
            from agent_tui.store.forks import ancestors  # lazy: start-up

            if owner in await ancestors(self.db, wanted):  # a fork reads its source's outputs
                wanted = owner
        if wanted is not None and wanted != owner:
            raise RefNotFound(
                f"ref {parsed.ref_id} is not in session {wanted}; it belongs to "
                f"another session — use its URI {build_uri(project, owner, parsed.ref_id)}"
            )
        return resolved

    async def list_blobs(
        self, session_id: str | None = None, project: str | os.PathLike[str] | None = None, limit: int = 200
    ) -> list[BlobInfo]:
        """Stored outputs, newest first, optionally of one session or project."""
        where, params = ["b.complete = 1"], []
        if session_id is not None:
            where.append("b.session_id = ?")
            params.append(session_id)
        if project is not None:
            where.append("s.project = ?")
            params.append(str(project))
        rows = await self.db.fetchall(
            "SELECT b.id, b.session_id, b.tool_name, b.byte_size, b.line_count, s.project, "
            "b.tool_call_id, b.created, b.last_accessed, b.access_count, b.first_line "
            "FROM tool_result_blobs b JOIN sessions s ON s.id = b.session_id "
            f"WHERE {' AND '.join(where)} ORDER BY b.created DESC, b.rowid DESC LIMIT ?",
            (*params, limit),
        )
        return [
            BlobInfo(ResultRef(r[0], r[3], r[4], r[2], r[1]), r[5], r[6], r[7], r[8], r[9], r[10])
            for r in rows
        ]

    async def recall(
        self,
        query: Queries,
        project: str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        limit: int = 10,
    ) -> list[RecallHit]:
        """Outputs across sessions and projects ranked by BM25 for `query` (one phrasing or
        several), with snippets and the call each came from."""
        await self.wait_indexed()  # an output stored a moment ago (or by another run) is found
        where = str(project) if project is not None else None
        return await recall(self.db, query, where, session_id, limit)

    async def _touch(self, ref_id: str) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "UPDATE tool_result_blobs SET last_accessed = ?, access_count = access_count + 1 "
                "WHERE id = ?",
                (time.time(), ref_id),
            )

    # -- reading ---------------------------------------------------------------------------

    async def view(self, ref: str | ResultRef, size: int = 4096, max_line_length: int = 2000) -> str:
        """What the model sees: lines cut at `max_line_length`; past `size` bytes, the head and
        the tail with `[… N lines omitted …]` between, and a footer saying how to read more."""
        if isinstance(ref, ResultRef) and (kept := self._kept.get(ref.id)) is not None:
            built = kept.view(ref.tool_name, ref.id, size, max_line_length)
            if built is not None:
                return built
        info = (await self.resolve(ref)).ref
        totals = views.OutputTotals(info.tool_name, info.byte_size, info.line_count, info.id)
        cap = 4 * max_line_length + 4
        if info.byte_size <= size:
            rows = await L.read_window(self.db, info.id, 1, info.line_count, cap)
            return views.render_whole([L.decode(b) for _, b in rows], totals, max_line_length)
        head: list[str] = []
        used = 0
        async with aclosing(L.iter_lines(self.db, info.id, 1, info.line_count, cap)) as lines:
            async for _, raw in lines:
                head.append(L.decode(raw))
                # Counted as the view shows it (long lines cut): half the size is the head's.
                used += len(views.cut_line(head[-1], max_line_length)[0].encode()) + 1
                if used > size // 2:
                    break
        want, start, tail = size, 0, []
        while True:
            # The tail must reach back past what `size` bytes of view hold: long lines are cut
            # in the view, so a tail of `size` raw bytes can be too few lines.
            # It may start among the head's candidates: the view shows fewer head lines than
            # were read, and `render_view` never repeats one that it shows.
            found = await L.tail_start(self.db, info.id, info.line_count, want)
            if found != start:
                start = found
                rows = await L.read_window(self.db, info.id, start, info.line_count - start + 1, cap)
                tail = [L.decode(b) for _, b in rows]
                shown = sum(len(views.cut_line(line, max_line_length)[0].encode()) + 1 for line in tail)
                if start == 1 or shown > size:
                    break
            if want >= info.byte_size:
                break
            want *= 2
        return views.render_view(head, tail, totals, size, max_line_length)

    async def read(
        self,
        ref_id: str,
        offset: int | None = None,
        limit: int | None = None,
        session_id: str | None = None,
        max_bytes: int = 51200,
        max_line_length: int = 2000,
        touch: bool = False,
    ) -> str:
        """Numbered lines `offset..offset+limit-1` (1-based), at most `max_bytes`, with a header
        and a footer saying how to page on."""
        resolved = await self.resolve(ref_id, session_id)
        info = resolved.ref
        total = info.line_count
        if resolved.lines:
            offset = offset or resolved.lines[0]
            limit = limit or resolved.lines[1] - resolved.lines[0] + 1
        offset = 1 if offset is None else offset
        limit = views.READ_LIMIT if limit is None else limit
        if total == 0:
            return f"[{info.id} ({info.tool_name} output) is empty: 0 lines]"
        if offset < 1 or offset > total:
            raise LineRangeError(
                f"offset {offset} is out of range: {info.id} has {total} lines; "
                f"use an offset from 1 to {total}"
            )
        if limit < 1:
            raise LineRangeError(f"limit must be at least 1 (got {limit}); {info.id} has {total} lines")
        end = min(total, offset + limit - 1)
        width = len(str(end))
        body: list[str] = []
        used = 0
        last = offset - 1
        cap = 4 * max_line_length + 4
        async with aclosing(L.iter_lines(self.db, info.id, offset, end, cap)) as lines:
            async for number, raw in lines:
                text = f"{number:>{width}}\t{views.cut_line(L.decode(raw), max_line_length)[0]}"
                cost = len(text.encode()) + 1
                if body and used + cost > max_bytes:
                    break
                body.append(text)
                used += cost
                last = number
        if touch:
            await self._touch(info.id)
        header = f"[{info.id} ({info.tool_name} output): lines {offset}-{last} of {total}]"
        if last < total:
            more = f"[lines {last + 1}-{total} remain: {views.read_hint(info.id, last + 1, limit)}]"
        else:
            more = "[end of output]"
        return "\n".join([header, *body, more])

    async def grep(
        self,
        ref_id: str,
        pattern: str,
        context: int = 0,
        session_id: str | None = None,
        max_matches: int = 200,
        max_bytes: int = 51200,
        max_line_length: int = 2000,
        touch: bool = False,
    ) -> str:
        """Lines matching the regex `pattern`, as `N:line` (context lines as `N-line`)."""
        regex = compile_pattern(pattern)
        info = (await self.resolve(ref_id, session_id)).ref
        scan = await grep_blob(
            self.db, self._pool, info.id, regex, context, max_matches, max_line_length, self.search_timeout
        )
        if touch:
            await self._touch(info.id)
        stopped = f"[{stopped_message(self.search_timeout)}]"
        if not scan.matches and scan.stopped:
            return f"[no match of {pattern!r} in {info.id} before the {stopped[1:]}"
        if not scan.matches:
            return (
                f"[no line of {info.id} ({info.tool_name} output, {info.line_count} lines) "
                f"matches {pattern!r}]"
            )
        body: list[str] = []
        used = shown = 0
        for line, is_match in scan.out:
            cost = len(line.encode()) + 1
            if body and used + cost > max_bytes:
                scan.truncated = True
                break
            body.append(line)
            used += cost
            shown += is_match
        header = (
            f"[grep {pattern!r} in {info.id} ({info.tool_name} output, "
            f"{info.line_count} lines): {shown} matching lines shown]"
        )
        lines = [header, *body]
        if scan.stopped:
            lines.append(stopped)
        elif scan.truncated:
            lines.append(
                "[more matches exist: narrow the pattern, or read around a match with "
                f"{views.read_hint(info.id, 1)} changing offset]"
            )
        return "\n".join(lines)

    async def read_lines(
        self,
        ref_id: str | ResultRef,
        start: int,
        count: int,
        session_id: str | None = None,
        max_line_length: int | None = None,
    ) -> list[str]:
        """Lines `start..start+count-1` (1-based) as text, for windowed viewers (not a model
        read: nothing is written)."""
        info = (await self.resolve(ref_id, session_id)).ref
        if count < 0 or start < 1 or (info.line_count and start > info.line_count):
            raise LineRangeError(
                f"lines {start}-{start + count - 1} are out of range: {info.id} has {info.line_count} lines"
            )
        cap = None if max_line_length is None else 4 * max_line_length + 4
        rows = await L.read_window(self.db, info.id, start, count, cap)
        out = [L.decode(raw) for _, raw in rows]
        if max_line_length is not None:
            out = [views.cut_line(line, max_line_length)[0] for line in out]
        return out

    async def iter_bytes(
        self, ref_id: str | ResultRef, session_id: str | None = None
    ) -> AsyncIterator[bytes]:
        """The whole output, chunk by chunk, exactly as stored."""
        info = (await self.resolve(ref_id, session_id)).ref
        seq = 0
        while True:
            rows = await self.db.fetchall(
                "SELECT seq, codec, data FROM blob_chunks WHERE blob_id = ? AND seq >= ? "
                "ORDER BY seq LIMIT 16",
                (info.id, seq),
            )
            if not rows:
                return
            for _seq, codec, data in rows:
                yield decompress(codec, data)
            seq = rows[-1][0] + 1

    async def get_bytes(self, ref_id: str | ResultRef, session_id: str | None = None) -> bytes:
        """The whole output, byte for byte."""
        return b"".join([piece async for piece in self.iter_bytes(ref_id, session_id)])

    async def get_text(self, ref_id: str | ResultRef, session_id: str | None = None) -> str:
        """The whole output as text; invalid UTF-8 shows as U+FFFD."""
        return (await self.get_bytes(ref_id, session_id)).decode("utf-8", "replace")

    async def gc(
        self, older_than: timedelta | None = None, max_total_bytes: int | None = None, dry_run: bool = False
    ) -> GcReport:
        """Delete outputs no session can reach any more; see `store.gc.collect`."""
        return await collect(self.db, older_than, max_total_bytes, dry_run)
