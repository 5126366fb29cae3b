"""The transcript as memory: ranges read and grepped like outputs, recall over what was said,
the index kept as messages come and go, and migration 4 indexing sessions saved before it."""

from __future__ import annotations

import asyncio
import time

import pytest

from agent_tui.base.messages import Message, ResultRef, ToolCall, assistant, tool_result, user
from agent_tui.store import BadRef, LineRangeError, RefNotFound, StoreError, open_store, parse_ref, schema


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "agent.db")
    yield opened
    await opened.close()


def chat(n: int) -> list[Message]:
    call = ToolCall("call_1", "bash", '{"command": "pytest -q tests/test_cart.py"}')
    out: list[Message] = [user("The deploy code is ZEBRA-7431. Never touch the migrations folder.")]
    out.append(assistant("I will run the cart tests.", (call,)))
    ref = ResultRef("r_0123456789", 4000, 120, "bash")
    out.append(tool_result(call, "FAILED tests/test_cart.py::test_total\n[view footer]", ref))
    out.append(assistant("Finding: the total ignores quantities in src/cart.py."))
    for i in range(n - len(out)):
        out.append(user(f"Request {i}: tidy module_{i}.py") if i % 2 == 0 else assistant(f"Done {i}."))
    return out


class TestRefs:
    def test_short_and_uri_forms_parse(self):
        """`m_12-340`, `m_7` and `ctx://…/messages:12-340` are ranges; refs stay refs."""
        assert parse_ref("m_12-340").messages == (12, 340)
        assert parse_ref("m_7").messages == (7, 7)
        assert parse_ref("m_12–340").messages == (12, 340)  # the en dash of prose
        uri = parse_ref("ctx:///home/me/shop/s_0123456789ab/messages:3-9")
        assert (uri.project, uri.session_id, uri.messages) == ("/home/me/shop", "s_0123456789ab", (3, 9))
        assert parse_ref("r_0123456789").messages is None

    def test_backwards_range_is_a_clear_error(self):
        """A range whose end comes first says how to write one."""
        with pytest.raises(BadRef, match="e.g. m_12-340"):
            parse_ref("m_40-12")


class TestRead:
    async def test_numbered_role_labelled_with_calls_and_refs(self, store):
        """Each message under `#n role`; tool calls with arguments; a stored result as one line
        with its ref, size and first line."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(4))
        text = await store.transcript.read("m_1-4", session_id=s.id)
        lines = text.splitlines()
        assert lines[0].startswith("[m_1-4 (transcript of session") and lines[-1] == "[end of m_1-4]"
        assert "#1 user" in lines and "The deploy code is ZEBRA-7431." in text
        assert '→ bash {"command": "pytest -q tests/test_cart.py"}' in lines
        assert (
            "#3 tool (bash result, ref=r_0123456789, 3.9 KB, 120 lines): FAILED tests/test_cart.py::test_total"
            in lines
        )
        assert "[view footer]" not in text
        assert "#4 assistant" in lines

    async def test_pages_by_message_number(self, store):
        """A limit leaves a footer naming the next offset; the offset reads from there."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(30))
        first = await store.transcript.read("m_1-30", limit=10, session_id=s.id)
        assert first.splitlines()[-1] == '[messages 11-30 remain: read_result(ref_id="m_1-30", offset=11)]'
        second = await store.transcript.read("m_1-30", offset=11, limit=10, session_id=s.id)
        assert "#11 " in second and "#10 " not in second and "#21 " not in second

    async def test_end_past_the_transcript_is_clipped(self, store):
        """A range reaching past the last message reads what exists; one starting past it errs."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(5))
        assert "[end of m_2-5]" in await store.transcript.read("m_2-99", session_id=s.id)
        with pytest.raises(LineRangeError, match="has 5 messages"):
            await store.transcript.read("m_9-12", session_id=s.id)

    async def test_byte_cap_cuts_a_huge_message_and_says_how_to_find_more(self, store):
        """One message past the byte cap: its head, a note pointing to grep, the next offset."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, [user("x" * 100 + "\n" + "line\n" * 5000), assistant("ok")])
        text = await store.transcript.read("m_1-2", session_id=s.id, max_bytes=2000)
        assert len(text.encode()) < 2600
        assert 'grep_result(ref_id="m_1-1"' in text
        assert "offset=2" in text

    async def test_other_sessions_by_uri_and_project_mismatch(self, store):
        """A short range is this session's; another session's needs its URI, and a URI naming
        the wrong project is an error that gives the right one."""
        a = await store.sessions.create("/proj/a", "m")
        b = await store.sessions.create("/proj/b", "m")
        await store.sessions.append(b.id, chat(4))
        with pytest.raises(LineRangeError):
            await store.transcript.read("m_1-4", session_id=a.id)
        text = await store.transcript.read(f"ctx:///proj/b/{b.id}/messages:1-2", session_id=a.id)
        assert "ZEBRA-7431" in text and f"ctx:///proj/b/{b.id}/messages:1-2" in text
        with pytest.raises(RefNotFound, match=f"ctx:///proj/b/{b.id}/messages:1-2"):
            await store.transcript.read(f"ctx:///proj/a/{b.id}/messages:1-2", session_id=a.id)


class TestGrep:
    async def test_matching_lines_with_message_numbers(self, store):
        """Matches come back as `#n role: line`; context lines as `#n role- line`."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(10))
        text = await store.transcript.grep("m_1-10", r"cart|quantities", session_id=s.id)
        assert "#2 assistant: → bash" in text and "#4 assistant: Finding: the total ignores" in text
        assert "#3 tool: FAILED tests/test_cart.py::test_total" in text
        none = await store.transcript.grep("m_1-10", "kubernetes", session_id=s.id)
        assert none.startswith("[no message in m_1-10 matches")
        with pytest.raises(StoreError, match="invalid regular expression"):
            await store.transcript.grep("m_1-10", "(", session_id=s.id)

    async def test_a_catastrophic_pattern_stops_at_the_budget_and_the_loop_keeps_ticking(self, store):
        """A sibling of grep_result's runaway regex: the transcript grep scanned on the event loop
        with no deadline, so `(a|aa)+$` over one long line froze it for hours."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, [user("a" * 40 + "b"), assistant("ok")])
        store.transcript.search_timeout = 0.5
        ticks = 0
        stop = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        task = asyncio.create_task(ticker())
        try:
            text = await store.transcript.grep("m_1-2", "(a|aa)+$", session_id=s.id)
        finally:
            stop.set()
            await task
        assert "search stopped after" in text and "narrow the pattern" in text
        assert ticks > 1  # the loop ran while the pattern was searched


class TestRecall:
    async def test_finds_what_was_said_with_its_message_number(self, store):
        """User text, assistant text and tool-call arguments are found, with seq and snippet."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(12))
        hits = await store.transcript.recall("deploy code")
        assert [(h.seq, h.role) for h in hits] == [(1, "user")]
        assert "deploy code is ZEBRA-7431" in hits[0].snippet and hits[0].ref == "m_1-1"
        assert hits[0].uri == f"ctx:///p/{s.id}/messages:1-1"
        assert [h.seq for h in await store.transcript.recall("test_cart")] == [2]
        assert [h.seq for h in await store.transcript.recall("quantities")] == [4]

    async def test_tool_results_and_notes_are_not_indexed_as_messages(self, store):
        """Outputs are recalled as outputs; agent-tui's own notes are not the user's words."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(
            s.id, chat(4) + [Message(role="user", content="[note zebra]", kind="note")]
        )
        assert await store.transcript.recall("FAILED") == []
        assert [h.seq for h in await store.transcript.recall("zebra")] == [1]

    async def test_scope_by_project_and_session(self, store):
        """project= and session_id= keep only hits from there; hits name their project."""
        a = await store.sessions.create("/proj/a", "m")
        b = await store.sessions.create("/proj/b", "m")
        await store.sessions.append(a.id, [user("the pelican config lives in a.toml")])
        await store.sessions.append(b.id, [user("the pelican config lives in b.toml")])
        assert {h.project for h in await store.transcript.recall("pelican")} == {"/proj/a", "/proj/b"}
        assert [h.session_id for h in await store.transcript.recall("pelican", project="/proj/b")] == [b.id]
        assert [h.session_id for h in await store.transcript.recall("pelican", session_id=a.id)] == [a.id]

    async def test_the_asking_turn_and_lookups_are_left_out(self, store):
        """The question being answered and recall's own calls never come back as hits."""
        s = await store.sessions.create("/p", "m")
        lookup = ToolCall("c9", "recall", '{"query": "deploy code"}')
        await store.sessions.append(
            s.id, [*chat(4), user("what was the deploy code?"), assistant(None, (lookup,))]
        )
        hits = await store.transcript.recall("deploy code", asking=s.id)
        assert [h.seq for h in hits] == [1]

    async def test_any_term_when_no_message_has_all(self, store):
        """No message holds every term: messages with any of them still come back."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(4))
        assert [h.seq for h in await store.transcript.recall("ZEBRA kubernetes")] == [1]
        with pytest.raises(StoreError, match="at least one word"):
            await store.transcript.recall("  ...  ")


class TestIndexLifecycle:
    async def test_delete_takes_messages_out_of_the_index(self, store):
        """Deleting a session leaves no hit behind (and no orphan rows in the index)."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(6))
        await store.sessions.delete(s.id)
        assert await store.transcript.recall("deploy") == []
        row = await store.db.fetchone("SELECT count(*) FROM message_fts")
        assert row[0] == 0

    async def test_imported_sessions_are_searchable(self, store, tmp_path):
        """An exported session imported into another database is found by recall there."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(s.id, chat(6))
        path = await store.sessions.export(s.id, tmp_path / "s.json")
        other = await open_store(tmp_path / "other.db")
        try:
            await other.sessions.import_(path)
            assert [h.seq for h in await other.transcript.recall("ZEBRA")] == [1]
        finally:
            await other.close()

    async def test_migration_indexes_sessions_saved_before_it(self, tmp_path, monkeypatch):
        """A database at schema 3 (no conversation index) is indexed when opened by this version."""
        path = tmp_path / "old.db"
        monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:3])
        old = await open_store(path)
        s = await old.sessions.create("/p", "m")
        async with old.db.write() as conn:  # what a schema-3 agent-tui wrote: no index rows
            await conn.executemany(
                "INSERT INTO messages (session_id, seq, message_id, role, kind, json, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(s.id, i + 1, m.id, m.role, m.kind, m.dumps(), time.time()) for i, m in enumerate(chat(8))],
            )
        await old.close()
        monkeypatch.undo()
        new = await open_store(path)
        try:
            assert await schema.user_version(new.db.conn) == len(schema.MIGRATIONS) >= 4
            assert [h.seq for h in await new.transcript.recall("migrations folder")] == [1]
            assert [h.seq for h in await new.transcript.recall("quantities")] == [4]
        finally:
            await new.close()


class TestTools:
    async def test_read_grep_and_recall_tools_take_ranges(self, store, tmp_path):
        """The model's tools: read_result and grep_result on m_a-b, recall listing messages
        (with their range) before outputs."""
        from agent_tui.tools.base import ToolContext, ToolServices
        from agent_tui.tools.context_tools import GrepResult, ReadResult, Recall

        s = await store.sessions.create(str(tmp_path), "m")
        await store.sessions.append(s.id, chat(6))
        await store.results.offload(s.id, "bash", None, "the deploy code rotates weekly\n")
        ctx = ToolContext(
            workspace=tmp_path, session_id=s.id, call_id="c", services=ToolServices(store=store)
        )
        read = await ReadResult().run({"ref_id": "m_1-3", "limit": 2}, ctx)
        assert not read.is_error and "#1 user" in read.text and "offset=3" in read.text
        grep = await GrepResult().run({"ref_id": "m_1-6", "pattern": "ZEBRA"}, ctx)
        assert "#1 user: The deploy code is ZEBRA-7431." in grep.text
        found = (await Recall().run({"query": "deploy code", "scope": "project"}, ctx)).text
        assert found.index("- m_1-1 message #1 user:") < found.index("stored output(s) match")
        only = (await Recall().run({"query": "deploy code", "source": "conversation"}, ctx)).text
        assert "stored output" not in only
        bad = await ReadResult().run({"ref_id": "m_50-60"}, ctx)
        assert bad.is_error and "has 6 messages" in bad.text


class TestGrepLimits:
    async def test_context_lines_and_match_cap(self, store):
        """Context lines come from the same message; past max_matches the output says more exist."""
        s = await store.sessions.create("/p", "m")
        await store.sessions.append(
            s.id, [user("alpha\nbeta\ngamma"), user("beta again"), user("beta third")]
        )
        text = await store.transcript.grep("m_1-3", "beta", context=1, session_id=s.id)
        assert "#1 user- alpha\n#1 user: beta\n#1 user- gamma" in text
        capped = await store.transcript.grep("m_1-3", "beta", session_id=s.id, max_matches=2)
        assert "2 matching lines" in capped and "[more matches exist" in capped
        exact = await store.transcript.grep("m_1-3", "beta", session_id=s.id, max_matches=3)
        assert "[more matches exist" not in exact
