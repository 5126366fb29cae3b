"""Recall: BM25 search over every stored output, and the background indexer that feeds it.

The FTS5 index has one row per chunk (external content: the text is not stored twice), so a hit
names the lines it is in and a snippet only decompresses one chunk. Recall ranks outputs by their
best chunk. Outputs (their first 16 MB) are indexed by a background task on its own connection
(`Database.side`), never on a step's path: it starts a batch only once the turn's connection has
been quiet for `IDLE_GAP`, a few chunks per transaction, so however big the backlog, a step meets
at most one short batch. A search indexes everything pending first (`wait`), so it never misses
an output stored a moment before. Chunks waiting are marked in the table, so work left at exit
resumes later (after the next open, at idle).
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections.abc import Sequence

from agent_tui.base.messages import ResultRef
from agent_tui.store.db import Database
from agent_tui.store.errors import StoreError
from agent_tui.store.hit_links import link_calls
from agent_tui.store.models import RecallHit

log = logging.getLogger(__name__)

_BATCH = 2
"""Chunks (≤ 128 KB of text) indexed per transaction: the write lock is free again in ms."""
START_DELAY = 0.5
"""Seconds the indexer waits after an offload before starting, so the view the loop builds
right after (and the next few reads) never queue behind it."""
IDLE_GAP = 0.25
"""Seconds the turn's connection must have been unused before the indexer writes a batch."""


class Indexer:
    """Indexes chunks marked `indexed = 0`, in the background, until none are left."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._failed = False
        self._hurry = asyncio.Event()

    async def pending(self) -> int:
        row = await self._db.fetchone("SELECT count(*) FROM blob_chunks WHERE indexed = 0")
        return int(row[0])

    def kick(self, delay: float = 0.0) -> None:
        """Start the indexer (after `delay` seconds) unless it is running or closing."""
        if self._stopping or (self._task is not None and not self._task.done()):
            return
        self._failed = False
        self._hurry = asyncio.Event()
        self._task = asyncio.create_task(self._run(delay), name="agent-tui-fts-indexer")

    async def wait(self) -> None:
        """Return once every stored output is in the recall index (or indexing gave up)."""
        while not self._stopping:
            if self._task is None or self._task.done():
                if self._failed or not await self.pending():
                    return
                self.kick()
            assert self._task is not None
            self._hurry.set()
            await asyncio.shield(self._task)

    async def stop(self) -> None:
        """Finish the batch in hand and stop; what is left is indexed after the next open."""
        self._stopping = True
        self._hurry.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self, delay: float) -> None:
        if delay:
            try:
                await asyncio.wait_for(self._hurry.wait(), delay)
            except TimeoutError:
                pass
        try:
            side = await self._db.side()
            while not self._stopping:
                await self._db.until_idle(IDLE_GAP, self._hurry)  # `wait` hurries: no pause then
                if self._stopping:
                    return
                rows = await side.fetchall(
                    "SELECT id FROM blob_chunks WHERE indexed = 0 ORDER BY id LIMIT ?", (_BATCH,)
                )
                if not rows:
                    return
                ids = [row[0] for row in rows]
                try:
                    await self._index(side, ids)
                except sqlite3.OperationalError:
                    raise  # busy or I/O: leave the chunks pending for a later run
                except sqlite3.Error:
                    log.exception("indexing chunks %s failed; retrying one by one", ids)
                    for chunk_id in ids:
                        await self._index_alone(side, chunk_id)
        except Exception:
            self._failed = True
            log.exception("recall indexing stopped; it resumes on the next store open")

    async def _index(self, side: Database, ids: list[int]) -> None:
        marks = ",".join("?" * len(ids))
        async with side.write() as conn:
            await conn.execute(
                "INSERT INTO blob_fts (rowid, text) SELECT id, agent_tui_text(codec, data) "
                f"FROM blob_chunks WHERE id IN ({marks}) AND indexed = 0",
                ids,
            )
            await conn.execute(
                f"UPDATE blob_chunks SET indexed = 1 WHERE id IN ({marks}) AND indexed = 0", ids
            )

    async def _index_alone(self, side: Database, chunk_id: int) -> None:
        try:
            await self._index(side, [chunk_id])
        except sqlite3.OperationalError:
            raise
        except sqlite3.Error:
            log.exception("chunk %s cannot be indexed; recall will not see it", chunk_id)
            async with side.write() as conn:
                await conn.execute("UPDATE blob_chunks SET indexed = -1 WHERE id = ?", (chunk_id,))


def fts_terms(query: str) -> list[str]:
    # Each whitespace-separated term becomes a quoted FTS5 string, so punctuation in paths and
    # error names (`src/app.py`, `ECONNREFUSED:`) is matched as a phrase, never parsed as syntax.
    return ['"' + term.replace('"', '""') + '"' for term in query.split() if re.search(r"\w", term)]


Queries = str | Sequence[str]
"""One phrasing, or several tried at once (`["client grievances", "complaints"]`)."""


def phrasings(queries: Queries) -> list[str]:
    return [queries] if isinstance(queries, str) else [str(q) for q in queries]


def fts_match(queries: Queries, example: str = "connection refused") -> tuple[str, str | None]:
    """The FTS5 expressions for `queries`: every word of one phrasing (any phrasing will do),
    then, as a fallback when nothing has all of them, any word at all (None when that is the
    same search). StoreError when no phrasing has a word."""
    groups = [terms for q in phrasings(queries) if (terms := fts_terms(q))]
    if not groups:
        raise StoreError(f'recall needs at least one word to search for, e.g. recall(query="{example}")')
    strict = " OR ".join(f"({' '.join(g)})" if len(g) > 1 else g[0] for g in groups)
    words = list(dict.fromkeys(t for g in groups for t in g))
    loose = " OR ".join(words)
    return strict, (loose if any(len(g) > 1 for g in groups) else None)


async def _ranked(
    db: Database, match: str, project: str | None, session_id: str | None, limit: int
) -> list[tuple[str, int, float]]:
    """(blob id, best chunk id, rank) for the best-ranked outputs, best first."""
    where, params = ["blob_fts MATCH ?"], [match]
    joins = ""
    if project is not None or session_id is not None:
        joins = " JOIN tool_result_blobs b ON b.id = c.blob_id JOIN sessions s ON s.id = b.session_id"
        if project is not None:
            where.append("s.project = ?")
            params.append(project)
        if session_id is not None:
            where.append("b.session_id = ?")
            params.append(session_id)
    fetch = limit * 3
    while True:
        rows = await db.fetchall(
            f"SELECT c.blob_id, f.rowid, f.rank FROM blob_fts f JOIN blob_chunks c "
            f"ON c.id = f.rowid{joins} WHERE {' AND '.join(where)} ORDER BY f.rank LIMIT ?",
            (*params, fetch),
        )
        best: dict[str, tuple[str, int, float]] = {}
        for blob_id, chunk_id, rank in rows:
            best.setdefault(blob_id, (blob_id, chunk_id, rank))
        if len(best) >= limit or len(rows) < fetch:
            return list(best.values())[:limit]
        fetch *= 4


async def recall(
    db: Database,
    query: Queries,
    project: str | None = None,
    session_id: str | None = None,
    limit: int = 10,
) -> list[RecallHit]:
    limit = max(1, min(limit, 100))
    match, loose = fts_match(query)
    ranked = await _ranked(db, match, project, session_id, limit)
    if not ranked and loose is not None:  # no output has every term: settle for any of them
        match = loose
        ranked = await _ranked(db, match, project, session_id, limit)
    hits: list[RecallHit] = []
    for blob_id, chunk_id, rank in ranked:
        # No match marks: the snippet quotes the output byte for byte (`ledger-bk-eu2`, never
        # `[ledger]-bk-eu2`), so an identifier copied from it is the real one.
        row = await db.fetchone(
            "SELECT b.session_id, s.project, b.tool_name, b.byte_size, b.line_count, "
            "c.first_line, c.end_line, "
            "(SELECT snippet(blob_fts, 0, '', '', '…', 16) FROM blob_fts "
            " WHERE blob_fts MATCH ? AND rowid = c.id) "
            "FROM blob_chunks c JOIN tool_result_blobs b ON b.id = c.blob_id "
            "JOIN sessions s ON s.id = b.session_id WHERE c.id = ?",
            (match, chunk_id),
        )
        if row is None:  # deleted since the ranking query
            continue
        session, project_dir, tool, size, lines, first, end = row[:7]
        snippet = " ".join((row[7] or "").split())
        hits.append(
            RecallHit(
                ref=ResultRef(blob_id, size, lines, tool, session),
                session_id=session,
                project=project_dir,
                snippet=snippet,
                score=-float(rank),
                lines=(first, end),
            )
        )
    return await link_calls(db, hits)
