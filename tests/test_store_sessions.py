"""Sessions: creation and listing, the append-only transcript, snapshots and resume,
concurrent appends, rename/delete, export and import."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from agent_tui.base.messages import Message, ToolCall, assistant, tool_result, user
from agent_tui.store import SessionNotFound, StoreError, open_store


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "data" / "agent.db")
    yield opened
    await opened.close()


def chat(n: int, prefix: str = "msg") -> list[Message]:
    return [user(f"{prefix} {i}") for i in range(n)]


class TestSessions:
    async def test_create_and_get(self, store):
        """A created session can be read back with its project, model and title."""
        made = await store.sessions.create("/work/p", "openai/gpt-4o-mini", "first")
        got = await store.sessions.get(made.id)
        assert (got.project, got.model, got.title) == ("/work/p", "openai/gpt-4o-mini", "first")
        assert made.id.startswith("s_") and got.message_count == 0

    async def test_unknown_session(self, store):
        """Asking for a session that does not exist is a SessionNotFound with advice."""
        with pytest.raises(SessionNotFound, match="sessions list"):
            await store.sessions.get("s_000000000000")

    async def test_list_newest_first_with_counts(self, store):
        """list() orders by last update and carries message and token counts."""
        a = await store.sessions.create("/p", "m")
        b = await store.sessions.create("/q", "m")
        await store.sessions.append(a.id, chat(3), tokens=[5, 6, None])
        listed = await store.sessions.list()
        assert [s.id for s in listed] == [a.id, b.id]
        assert (listed[0].message_count, listed[0].tokens) == (3, 11)
        assert [s.id for s in await store.sessions.list("/q")] == [b.id]

    async def test_newest_of_project(self, store):
        """newest(project) is the most recently updated session of that directory only."""
        old = await store.sessions.create("/p", "m")
        await store.sessions.create("/other", "m")
        assert (await store.sessions.newest("/p")).id == old.id
        assert await store.sessions.newest("/nowhere") is None

    async def test_title_from_first_user_message(self, store):
        """An untitled session takes its title from the first user message's first line."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, [user("fix the failing test\nmore detail")])
        await store.sessions.append(s.id, [user("something else")])
        assert (await store.sessions.get(s.id)).title == "fix the failing test"

    async def test_find_by_prefix(self, store):
        """A unique id prefix finds its session; an ambiguous one is an error."""
        s = await store.sessions.create("/p", "m")
        assert (await store.sessions.find(s.id[:6])).id == s.id
        await store.sessions.create("/p", "m")
        with pytest.raises(StoreError, match="several"):
            await store.sessions.find("s_")

    async def test_rename(self, store):
        """rename() changes the title; renaming a missing session is an error."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.rename(s.id, "new name")
        assert (await store.sessions.get(s.id)).title == "new name"
        with pytest.raises(SessionNotFound):
            await store.sessions.rename("s_000000000000", "x")


class TestTranscript:
    async def test_append_returns_sequences_and_round_trips(self, store):
        """Messages come back equal, in order, with consecutive sequence numbers."""
        s = await store.sessions.create("/p", "m")
        call = ToolCall("call_1", "bash", '{"command": "ls"}')
        messages = [user("hi"), assistant(None, (call,)), tool_result(call, "a\nb")]
        assert await store.sessions.append(s.id, messages) == [1, 2, 3]
        assert await store.sessions.append(s.id, [user("again")]) == [4]
        got = await store.sessions.transcript(s.id)
        assert got[:3] == messages and got[3].content == "again"
        assert await store.sessions.last_sequence(s.id) == 4

    async def test_append_to_missing_session(self, store):
        """Appending to an unknown session raises and stores nothing."""
        with pytest.raises(SessionNotFound):
            await store.sessions.append("s_000000000000", chat(1))

    async def test_transcript_is_append_only(self, store):
        """The database itself refuses to change a stored message."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(1))
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            async with store.db.write() as conn:
                await conn.execute("UPDATE messages SET json = '{}'")

    async def test_concurrent_appends_lose_nothing(self, store):
        """Two sessions appending at once from many tasks keep every message, in order."""
        a = await store.sessions.create("/p", "m")
        b = await store.sessions.create("/p", "m")

        async def writer(session_id: str, tag: str) -> None:
            for i in range(40):
                await store.sessions.append(session_id, [user(f"{tag} {i}")])

        await asyncio.gather(writer(a.id, "a1"), writer(a.id, "a2"), writer(b.id, "b"))
        got_a = [m.content for m in await store.sessions.transcript(a.id)]
        got_b = [m.content for m in await store.sessions.transcript(b.id)]
        assert sorted(got_a) == sorted([f"a1 {i}" for i in range(40)] + [f"a2 {i}" for i in range(40)])
        assert [c for c in got_a if c.startswith("a1")] == [f"a1 {i}" for i in range(40)]
        assert got_b == [f"b {i}" for i in range(40)]
        assert (await store.sessions.get(a.id)).message_count == 80

    async def test_two_connections_append_to_one_session(self, tmp_path):
        """Two Stores (two connections, as two processes would have) never reuse a sequence."""
        path = tmp_path / "agent.db"
        first, second = await open_store(path), await open_store(path)
        try:
            s = await first.sessions.create("/p", "m")

            async def writer(store, tag):
                for i in range(30):
                    await store.sessions.append(s.id, [user(f"{tag} {i}")])

            await asyncio.gather(writer(first, "x"), writer(second, "y"))
            got = await first.sessions.transcript(s.id)
            assert len(got) == 60
            assert await first.sessions.last_sequence(s.id) == 60
        finally:
            await first.close()
            await second.close()


class TestSnapshots:
    async def test_resume_is_snapshot_plus_later_messages(self, store):
        """Resume = newest snapshot + every message after the sequence it covers."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(5))
        summary = user("summary of 1-5", kind="summary")
        await store.sessions.save_snapshot(s.id, [summary], 42, through_seq=5)
        await store.sessions.append(s.id, chat(2, "later"))
        resumed = await store.sessions.load_for_resume(s.id)
        assert resumed[0] == summary
        assert [m.content for m in resumed[1:]] == ["later 0", "later 1"]

    async def test_newest_snapshot_wins(self, store):
        """With several snapshots, resume starts from the newest."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(4))
        await store.sessions.save_snapshot(s.id, [user("old", kind="summary")], 1, 2)
        await store.sessions.save_snapshot(s.id, [user("new", kind="summary")], 1, 3)
        resumed = await store.sessions.load_for_resume(s.id)
        assert [m.content for m in resumed] == ["new", "msg 3"]

    async def test_snapshot_alone_never_drops_new_messages(self, store):
        """A snapshot covering everything resumes to exactly the snapshot; later appends
        always come back after it."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(2))
        await store.sessions.save_snapshot(s.id, [user("sum", kind="summary")], 1, 2)
        assert [m.content for m in await store.sessions.load_for_resume(s.id)] == ["sum"]
        await store.sessions.append(s.id, [user("after")])
        assert [m.content for m in await store.sessions.load_for_resume(s.id)] == ["sum", "after"]

    async def test_no_snapshot_resumes_whole_transcript(self, store):
        """Without a snapshot, resume returns the whole transcript."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(3))
        assert await store.sessions.load_for_resume(s.id) == await store.sessions.transcript(s.id)

    async def test_snapshot_past_transcript_refused(self, store):
        """A snapshot cannot claim to cover messages that were never appended."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(1))
        with pytest.raises(StoreError, match="covers sequence 5"):
            await store.sessions.save_snapshot(s.id, [], 0, 5)

    async def test_unreadable_snapshot_falls_back_to_transcript(self, store):
        """A damaged snapshot row degrades to the whole transcript instead of failing."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(2))
        await store.sessions.save_snapshot(s.id, [user("x")], 1, 2)
        async with store.db.write() as conn:
            await conn.execute("UPDATE session_snapshots SET messages = 'not json'")
        assert [m.content for m in await store.sessions.load_for_resume(s.id)] == ["msg 0", "msg 1"]


class TestDelete:
    async def test_delete_cascades_to_everything(self, store):
        """Deleting a session removes its messages, snapshots, outputs and their index rows."""
        s = await store.sessions.create("/p", "m")
        keep = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(2))
        await store.sessions.save_snapshot(s.id, [user("x")], 1, 2)
        ref = await store.results.offload(s.id, "bash", "c1", "zebra crossing\n" * 10)
        other = await store.results.offload(keep.id, "bash", "c2", "zebra other\n")
        await store.sessions.delete(s.id)
        for table in ("messages", "session_snapshots", "tool_result_blobs", "blob_chunks"):
            row = await store.db.fetchone(
                f"SELECT count(*) FROM {table} WHERE "
                + ("session_id = ?" if table != "blob_chunks" else "blob_id = ?"),
                (s.id if table != "blob_chunks" else ref.id,),
            )
            assert row[0] == 0, table
        hits = await store.results.recall("zebra")
        assert [h.ref.id for h in hits] == [other.id]
        row = await store.db.fetchone("SELECT count(*) FROM blob_fts WHERE blob_fts MATCH 'crossing'")
        assert row[0] == 0
        with pytest.raises(SessionNotFound):
            await store.sessions.delete(s.id)


class TestExportImport:
    async def test_round_trip_with_binary_blob(self, store, tmp_path):
        """Export then import into another database restores transcript, snapshot and outputs
        byte for byte (refs still resolve)."""
        s = await store.sessions.create("/p", "m", "exported")
        call = ToolCall("c1", "bash", "{}")
        binary = bytes(range(256)) * 700 + b"\xff\xfe tail\n"
        text = "".join(f"ligne {i} é\n" for i in range(30_000))
        ref_bin = await store.results.offload(s.id, "bash", "c1", binary)
        ref_txt = await store.results.offload(s.id, "bash", "c2", text)
        messages = [user("go"), assistant(None, (call,)), tool_result(call, "v", ref_txt)]
        await store.sessions.append(s.id, messages, tokens=[1, 2, 3])
        await store.sessions.save_snapshot(s.id, messages[:1], 1, 1)
        path = await store.sessions.export(s.id, tmp_path / "out.json")
        assert (path.stat().st_mode & 0o777) == 0o600
        assert json.loads(path.read_text())["format"] == "agent-tui-session"

        other = await open_store(tmp_path / "other.db")
        try:
            info = await other.sessions.import_(path)
            assert (info.id, info.title, info.message_count, info.tokens) == (s.id, "exported", 3, 6)
            assert await other.sessions.transcript(s.id) == messages
            assert await other.sessions.load_for_resume(s.id) == await store.sessions.load_for_resume(s.id)
            assert await other.results.get_bytes(ref_bin.id) == binary
            assert await other.results.get_text(ref_txt.id) == text
            await other.results.wait_indexed()
            assert [h.ref.id for h in await other.results.recall("ligne 29999")] == [ref_txt.id]
        finally:
            await other.close()

    async def test_import_refuses_existing_session(self, store, tmp_path):
        """Importing a session that is already there fails and changes nothing."""
        s = await store.sessions.create("/p", "m")
        path = await store.sessions.export(s.id, tmp_path / "s.json")
        with pytest.raises(StoreError, match="already exists"):
            await store.sessions.import_(path)

    async def test_import_rejects_other_files(self, store, tmp_path):
        """A file that is not an export is a one-line error naming it."""
        bad = tmp_path / "bad.json"
        bad.write_text('{"hello": 1}')
        with pytest.raises(StoreError, match="not an agent-tui session export"):
            await store.sessions.import_(bad)
        bad.write_text("{broken")
        with pytest.raises(StoreError, match="invalid JSON"):
            await store.sessions.import_(bad)
