"""Recall hits that lead to the output, snippets that quote byte for byte, several phrasings at
once, inflections, and the migration that rebuilt the indexes with the stemmer.

A real database through the store and the model's own tools (`recall`, `read_result`)."""

from __future__ import annotations

import sqlite3

import pytest

from agent_tui.base.messages import ResultRef, ToolCall, assistant, tool_result, user
from agent_tui.store import open_store
from agent_tui.store.schema import MIGRATIONS
from agent_tui.tools.base import ToolContext, ToolServices
from agent_tui.tools.context_tools import ReadResult, Recall


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "agent.db")
    yield opened
    await opened.close()


LOG = "".join(f"worker ok batch {i}\n" for i in range(300)) + "queue: ledger-bk-eu2 drained\n"


async def session_with_a_log(store, tmp_path):
    """A call `bash: cat step_003.log`, its 301-line output stored, then a word from the user."""
    s = await store.sessions.create(str(tmp_path), "m")
    ref = await store.results.offload(s.id, "bash", "call_3", LOG)
    call = ToolCall("call_3", "bash", '{"command": "cat step_003.log"}')
    view = "worker ok batch 0\n[… 299 lines omitted …]\nqueue: ledger-bk-eu2 drained"
    await store.sessions.append(
        s.id,
        [
            user("step 3: inspect step_003.log"),
            assistant("", (call,)),
            tool_result(call, view, ref),
            assistant("The deployments were rolled back twice."),
            user("what did we find?"),  # the turn asking: recall leaves it out
        ],
    )
    await store.results.wait_indexed()
    ctx = ToolContext(workspace=tmp_path, session_id=s.id, call_id="c", services=ToolServices(store=store))
    return s, ref, ctx


class TestHitsLead:
    async def test_a_call_hit_names_its_output_ref_and_first_line(self, store, tmp_path):
        """recall on a file name finds the call, and the hit names its output's ref, size and
        first line: grep_result can follow at once."""
        _, ref, ctx = await session_with_a_log(store, tmp_path)
        text = (await Recall().run({"query": "step_003.log", "source": "conversation"}, ctx)).text
        line = next(x for x in text.splitlines() if x.startswith("- m_2-2"))
        assert f"→ its output ref={ref.id} (" in line and "301 lines) begins: worker ok batch 0" in line

    async def test_an_output_hit_names_its_call(self, store, tmp_path):
        """recall on the output's text finds the output, and the hit names the call that made it."""
        _, ref, ctx = await session_with_a_log(store, tmp_path)
        text = (await Recall().run({"query": "drained", "source": "outputs"}, ctx)).text
        line = next(x for x in text.splitlines() if x.startswith(f"- {ref.id}"))
        assert "made by m_2-2 bash: cat step_003.log" in line

    async def test_snippets_quote_identifiers_byte_for_byte(self, store, tmp_path):
        """A matched identifier comes back exactly as stored: no marks inside it."""
        _, _, ctx = await session_with_a_log(store, tmp_path)
        text = (await Recall().run({"query": "ledger", "source": "outputs"}, ctx)).text
        assert "queue: ledger-bk-eu2 drained" in text and "[ledger]" not in text

    async def test_a_page_shows_a_stored_result_as_one_line(self, store, tmp_path):
        """A transcript page holds the call and its result as one line (ref, size, first line);
        reading the one message shows its view."""
        _, ref, ctx = await session_with_a_log(store, tmp_path)
        page = (await ReadResult().run({"ref_id": "m_1-4"}, ctx)).text
        assert f"#3 tool (bash result, ref={ref.id}, " in page and "lines omitted" not in page
        assert "#4 assistant" in page
        one = (await ReadResult().run({"ref_id": "m_3-3"}, ctx)).text
        assert "[… 299 lines omitted …]" in one


class TestOtherWords:
    async def test_several_phrasings_at_once(self, store, tmp_path):
        """`queries` searches every phrasing; a hit may match any one of them."""
        _, ref, ctx = await session_with_a_log(store, tmp_path)
        out = await Recall().run({"queries": ["grievance inbox", "ledger queue"]}, ctx)
        assert not out.is_error and ref.id in out.text

    async def test_inflections_match(self, store, tmp_path):
        """`rolling deployment` finds `deployments were rolled back` (no word matches as typed)."""
        _, _, ctx = await session_with_a_log(store, tmp_path)
        text = (await Recall().run({"query": "rolling deployment", "source": "conversation"}, ctx)).text
        assert "- m_4-4 message #4 assistant: The deployments were rolled back twice." in text

    async def test_no_words_is_a_clear_error(self, store, tmp_path):
        """Neither query nor queries: one line saying what to pass."""
        _, _, ctx = await session_with_a_log(store, tmp_path)
        out = await Recall().run({"queries": [" "]}, ctx)
        assert out.is_error and 'queries=["…", "…"]' in out.text

    async def test_migration_rebuilds_existing_indexes_with_the_stemmer(self, tmp_path):
        """A database indexed before stemming finds inflections after the migration re-runs:
        the conversation at once, the outputs once the background indexer has caught up."""
        path = tmp_path / "old.db"
        first = await open_store(path)
        s = await first.sessions.create(str(tmp_path), "m")
        await first.sessions.append(s.id, [user("the deployments were rolled back")])
        await first.results.offload(s.id, "bash", None, "3 migrations applied\n")
        await first.results.wait_indexed()
        await first.close()
        with sqlite3.connect(path) as raw:  # as the previous release left it
            raw.execute("DROP TABLE message_fts")
            raw.execute("CREATE VIRTUAL TABLE message_fts USING fts5(text, tokenize='unicode61')")
            raw.execute(f"PRAGMA user_version = {[n for n, _ in MIGRATIONS].index('recall_stemming')}")
        again = await open_store(path)
        try:
            said = await again.transcript.recall("rolling deployment")
            assert [h.seq for h in said] == [1]
            await again.results.wait_indexed()
            stored = await again.results.recall("migration")
            assert len(stored) == 1
        finally:
            await again.close()


def test_result_ref_extent_in_labels():
    """The extent a hit or label shows: size in human units and the line count."""
    from agent_tui.context.compaction.ref_labels import extent

    assert extent(ResultRef("r_1", 24_600, 420, "bash").byte_size, 420) == "24 KB, 420 lines"
    assert extent(10, 1) == "10 B, 1 line"
