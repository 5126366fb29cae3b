"""Garbage collection of stored outputs: what no session can reach any more, and, when asked,
old or surplus outputs — never one a session's current context still refers to.

A session's current context is its newest snapshot plus the transcript after it (the whole
transcript when it has no snapshot); any ref id written anywhere in those messages (an
`output_ref`, a `[tool output trimmed; ref=…]`, a summary naming it) keeps its output alive.
Deleting a chunk takes it out of the recall index (a trigger), and the freed pages are handed
back to the file system afterwards.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from agent_tui.store.db import Database
from agent_tui.store.models import GcReport
from agent_tui.store.refs import REF_RE

log = logging.getLogger(__name__)

STALE_PARTIAL = 24 * 3600
"""Seconds after which an output still marked as being written is taken as abandoned."""


async def protected_refs(db: Database) -> set[str]:
    """Ref ids named in any session's newest snapshot or in its transcript after it."""
    refs: set[str] = set()
    for (text,) in await db.fetchall(
        "SELECT messages FROM session_snapshots WHERE id IN "
        "(SELECT max(id) FROM session_snapshots GROUP BY session_id)"
    ):
        refs.update(REF_RE.findall(text))
    last = 0
    while True:
        rows = await db.fetchall(
            "SELECT m.id, m.json FROM messages m WHERE m.id > ? AND m.seq > coalesce("
            "(SELECT through_seq FROM session_snapshots s WHERE s.session_id = m.session_id "
            "ORDER BY s.id DESC LIMIT 1), 0) ORDER BY m.id LIMIT 500",
            (last,),
        )
        if not rows:
            return refs
        for _id, text in rows:
            refs.update(REF_RE.findall(text))
        last = rows[-1][0]


async def collect(
    db: Database,
    older_than: timedelta | None = None,
    max_total_bytes: int | None = None,
    dry_run: bool = False,
) -> GcReport:
    """Remove orphaned and abandoned outputs, then (if asked) those not read for `older_than`,
    then the least recently used until the total is under `max_total_bytes`."""
    before = db.file_bytes()
    now = time.time()
    keep = await protected_refs(db)
    doomed: dict[str, int] = {}
    for blob_id, size in await db.fetchall(
        "SELECT b.id, b.byte_size FROM tool_result_blobs b "
        "LEFT JOIN sessions s ON s.id = b.session_id "
        "WHERE s.id IS NULL OR (b.complete = 0 AND b.created < ?)",
        (now - STALE_PARTIAL,),
    ):
        doomed[blob_id] = size
    spared = set()
    if older_than is not None:
        for blob_id, size in await db.fetchall(
            "SELECT id, byte_size FROM tool_result_blobs WHERE complete = 1 "
            "AND coalesce(last_accessed, created) < ?",
            (now - older_than.total_seconds(),),
        ):
            if blob_id in keep:
                spared.add(blob_id)
            else:
                doomed[blob_id] = size
    if max_total_bytes is not None:
        row = await db.fetchone(
            "SELECT coalesce(sum(byte_size), 0) FROM tool_result_blobs WHERE complete = 1"
        )
        total = int(row[0]) - sum(doomed.values())
        if total > max_total_bytes:
            for blob_id, size in await db.fetchall(
                "SELECT id, byte_size FROM tool_result_blobs WHERE complete = 1 "
                "ORDER BY coalesce(last_accessed, created), created"
            ):
                if total <= max_total_bytes:
                    break
                if blob_id in doomed:
                    continue
                if blob_id in keep:
                    spared.add(blob_id)
                    continue
                doomed[blob_id] = size
                total -= size
    if not dry_run:
        for blob_id in doomed:
            # One transaction each: a GC of thousands never blocks the other tabs for long.
            async with db.write() as conn:
                await conn.execute("DELETE FROM tool_result_blobs WHERE id = ?", (blob_id,))
        if doomed:
            async with db.read() as conn:
                # executescript steps the pragma to the end; a plain execute frees one page.
                await conn.executescript("PRAGMA incremental_vacuum;")
                async with conn.execute("PRAGMA wal_checkpoint(TRUNCATE)") as cur:
                    await cur.fetchall()
        log.info("gc removed %d outputs (%d bytes)", len(doomed), sum(doomed.values()))
    return GcReport(
        blobs_removed=len(doomed),
        bytes_removed=sum(doomed.values()),
        protected=len(spared),
        file_bytes_before=before,
        file_bytes_after=db.file_bytes(),
        dry_run=dry_run,
    )
