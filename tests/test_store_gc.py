"""Garbage collection: orphans go, old and surplus outputs go when asked, referenced ones stay."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest

from agent_tui.base.messages import ToolCall, assistant, tool_result, user
from agent_tui.store import open_store


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "agent.db")
    yield opened
    await opened.close()


async def age(store, ref_id: str, days: float) -> None:
    """Make an output look `days` old (created and last read)."""
    stamp = time.time() - days * 86400
    async with store.db.write() as conn:
        await conn.execute(
            "UPDATE tool_result_blobs SET created = ?, last_accessed = NULL WHERE id = ?", (stamp, ref_id)
        )


async def ids(store) -> set[str]:
    return {row[0] for row in await store.db.fetchall("SELECT id FROM tool_result_blobs")}


class TestOrphans:
    async def test_blobs_of_deleted_sessions_removed(self, store):
        """Outputs whose session row is gone (e.g. deleted with foreign keys off) are removed."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", None, "orphan\n" * 10)
        async with store.db.read() as conn:
            await conn.execute("PRAGMA foreign_keys = OFF")
            await conn.execute("DELETE FROM sessions WHERE id = ?", (s.id,))
            await conn.execute("PRAGMA foreign_keys = ON")
        report = await store.results.gc()
        assert report.blobs_removed == 1 and report.bytes_removed == ref.byte_size
        assert await ids(store) == set()

    async def test_abandoned_partial_writes_removed(self, store):
        """An output left half-written for over a day (a crashed writer) is removed."""
        s = await store.sessions.create("/p", "m")
        async with store.db.write() as conn:
            await conn.execute(
                "INSERT INTO tool_result_blobs (id, session_id, tool_name, complete, created) "
                "VALUES ('r_aaaaaaaaaa', ?, 'bash', 0, ?)",
                (s.id, time.time() - 2 * 86400),
            )
        assert (await store.results.gc()).blobs_removed == 1

    async def test_plain_gc_keeps_live_outputs(self, store):
        """Without age or size limits nothing reachable is removed."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", None, "x\n")
        await age(store, ref.id, 400)
        assert (await store.results.gc()).blobs_removed == 0


class TestAge:
    async def test_old_unreferenced_removed_referenced_kept(self, store):
        """older_than removes old outputs except those the current context refers to."""
        s = await store.sessions.create("/p", "m")
        old_free = await store.results.offload(s.id, "bash", None, "free\n")
        old_used = await store.results.offload(s.id, "bash", "c1", "used\n")
        fresh = await store.results.offload(s.id, "bash", None, "fresh\n")
        call = ToolCall("c1", "bash", "{}")
        await store.sessions.append(
            s.id, [user("go"), assistant(None, (call,)), tool_result(call, "view", old_used)]
        )
        await age(store, old_free.id, 40)
        await age(store, old_used.id, 40)
        report = await store.results.gc(older_than=timedelta(days=30))
        assert report.blobs_removed == 1 and report.protected == 1
        assert await ids(store) == {old_used.id, fresh.id}

    async def test_snapshot_decides_what_is_current(self, store):
        """After a snapshot, refs only in the compacted-away transcript are collectable,
        refs named in the snapshot text or after it are kept."""
        s = await store.sessions.create("/p", "m")
        gone = await store.results.offload(s.id, "bash", None, "gone\n")
        summarised = await store.results.offload(s.id, "bash", None, "summarised\n")
        later = await store.results.offload(s.id, "bash", None, "later\n")
        await store.sessions.append(s.id, [user(f"see {gone.id} and {summarised.id}")])
        await store.sessions.save_snapshot(
            s.id, [user(f"[tool output trimmed; ref={summarised.id}]", kind="summary")], 10, 1
        )
        await store.sessions.append(s.id, [user(f"now {later.id}")])
        for ref in (gone, summarised, later):
            await age(store, ref.id, 90)
        report = await store.results.gc(older_than=timedelta(days=1))
        assert await ids(store) == {summarised.id, later.id}
        assert report.protected == 2

    async def test_recent_reads_keep_an_output(self, store):
        """Age counts from the last read, so an old output read recently stays."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", None, "x\n")
        await age(store, ref.id, 60)
        await store.results.read(ref.id, 1, 1, touch=True)
        assert (await store.results.gc(older_than=timedelta(days=30))).blobs_removed == 0


class TestSize:
    async def test_max_total_bytes_removes_least_recently_used(self, store):
        """Over the cap, the least recently used unreferenced outputs go first."""
        s = await store.sessions.create("/p", "m")
        refs = []
        for days in (50, 40, 30, 20):
            ref = await store.results.offload(s.id, "bash", None, "z" * 1000)
            await age(store, ref.id, days)
            refs.append(ref)
        report = await store.results.gc(max_total_bytes=2500)
        assert report.blobs_removed == 2
        assert await ids(store) == {refs[2].id, refs[3].id}

    async def test_dry_run_removes_nothing(self, store):
        """A dry run reports what would go and deletes nothing."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", None, "z" * 1000)
        report = await store.results.gc(max_total_bytes=0, dry_run=True)
        assert report.dry_run and report.blobs_removed == 1
        assert await ids(store) == {ref.id}

    async def test_space_is_reclaimed(self, store):
        """Removing a big output shrinks the database file."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", None, os.urandom(3_000_000))
        await store.results.wait_indexed()  # its chunks are in the file (store/spool.py)
        await age(store, ref.id, 10)
        report = await store.results.gc(older_than=timedelta(days=1))
        assert report.blobs_removed == 1
        assert report.file_bytes_after < report.file_bytes_before - 2_000_000
