"""Recall: BM25 ranking across sessions and projects, snippets, background indexing."""

from __future__ import annotations

import pytest

from agent_tui.store import StoreError, open_store


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "agent.db")
    yield opened
    await opened.close()


def filler(n: int, word: str = "routine") -> str:
    return "".join(f"{word} output line {i}\n" for i in range(n))


class TestRecall:
    async def test_ranks_best_match_first_across_projects(self, store):
        """The output mentioning the terms most ranks first, whatever its project."""
        a = await store.sessions.create("/proj/a", "m")
        b = await store.sessions.create("/proj/b", "m")
        weak = await store.results.offload(a.id, "bash", None, filler(50) + "connection refused once\n")
        strong = await store.results.offload(
            b.id, "bash", None, "ECONNREFUSED: connection refused\n" * 20 + filler(5)
        )
        await store.results.offload(a.id, "bash", None, filler(30))
        hits = await store.results.recall("connection refused")
        assert [h.ref.id for h in hits] == [strong.id, weak.id]
        assert hits[0].score > hits[1].score > 0
        assert hits[0].project == "/proj/b" and hits[0].session_id == b.id
        assert "ECONNREFUSED: connection refused" in hits[0].snippet and "[" not in hits[0].snippet
        assert hits[0].uri.startswith("ctx:///proj/b/")

    async def test_project_and_session_filters(self, store):
        """project= and session_id= keep only hits from there."""
        a = await store.sessions.create("/proj/a", "m")
        b = await store.sessions.create("/proj/b", "m")
        in_a = await store.results.offload(a.id, "bash", None, "needle here\n")
        in_b = await store.results.offload(b.id, "bash", None, "needle there\n")
        assert [h.ref.id for h in await store.results.recall("needle", project="/proj/a")] == [in_a.id]
        assert [h.ref.id for h in await store.results.recall("needle", session_id=b.id)] == [in_b.id]

    async def test_punctuation_is_not_query_syntax(self, store):
        """Paths and error names with FTS operators in them search as phrases."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(
            s.id, "bash", None, 'Traceback in src/app.py: KeyError("x") - NOT found\n'
        )
        for query in ["src/app.py", 'KeyError("x")', "NOT", "-", "found*"]:
            if query == "-":
                with pytest.raises(StoreError, match="at least one word"):
                    await store.results.recall(query)
                continue
            assert [h.ref.id for h in await store.results.recall(query)] == [ref.id], query

    async def test_falls_back_to_any_term(self, store):
        """When no output has every term, outputs with some of them are returned."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", None, "alpha beta\n")
        assert [h.ref.id for h in await store.results.recall("alpha gamma")] == [ref.id]

    async def test_hit_names_the_chunk_lines(self, store):
        """A hit deep in a big output points at the lines of the chunk holding it."""
        s = await store.sessions.create("/p", "m")
        text = filler(20_000) + "the unicorn appeared\n" + filler(20_000)
        ref = await store.results.offload(s.id, "bash", None, text)
        await store.results.wait_indexed()
        hit = (await store.results.recall("unicorn"))[0]
        assert hit.ref.id == ref.id
        start, end = hit.lines
        assert start <= 20_001 <= end and end - start < 5000
        lines = await store.results.read_lines(ref.id, start, end - start + 1)
        assert "the unicorn appeared" in lines

    async def test_binary_output_not_indexed(self, store):
        """Outputs with NUL bytes are stored but kept out of the text index."""
        s = await store.sessions.create("/p", "m")
        await store.results.offload(s.id, "cat", None, b"\x00\x01 secretword \x00")
        assert await store.results.recall("secretword") == []


class TestBackgroundIndexing:
    async def test_large_output_indexed_in_background(self, store):
        """An output over 64 KB becomes searchable once wait_indexed() returns."""
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", None, filler(50_000) + "marmalade at the end\n")
        await store.results.wait_indexed()
        assert await store.results.indexer.pending() == 0
        assert [h.ref.id for h in await store.results.recall("marmalade")] == [ref.id]

    async def test_only_first_16_mb_indexed(self, store):
        """Text past the first 16 MB is stored but not indexed."""
        s = await store.sessions.create("/p", "m")
        text = "early bird\n" + "x" * 99 + "\n"
        body = ("y" * 99 + "\n") * (17 * 1024 * 1024 // 100) + "late owl\n"
        ref = await store.results.offload(s.id, "bash", None, text + body)
        await store.results.wait_indexed()
        assert [h.ref.id for h in await store.results.recall("early")] == [ref.id]
        assert await store.results.recall("owl") == []
        assert (await store.results.read_lines(ref.id, ref.line_count, 1)) == ["late owl"]

    async def test_indexing_resumes_after_reopen(self, tmp_path):
        """Work left when the store closes is picked up on the next open."""
        path = tmp_path / "agent.db"
        store = await open_store(path)
        s = await store.sessions.create("/p", "m")
        await store.results.indexer.stop()  # as if the app quit before indexing
        ref = await store.results.offload(s.id, "bash", None, filler(40_000) + "kumquat\n")
        # Left undone: chunks not indexed, or (a big output from memory) not even written yet.
        assert await store.results.indexer.pending() > 0 or (store.results.spool.folder / ref.id).exists()
        await store.close()
        store = await open_store(path)
        try:
            await store.results.wait_indexed()
            assert [h.ref.id for h in await store.results.recall("kumquat")] == [ref.id]
        finally:
            await store.close()

    async def test_index_consistent_after_gc_and_delete(self, store):
        """Deleting indexed outputs leaves an FTS index that passes its integrity check."""
        s = await store.sessions.create("/p", "m")
        keep = await store.sessions.create("/p", "m")
        await store.results.offload(s.id, "bash", None, filler(30_000, "apple"))
        await store.results.offload(keep.id, "bash", None, filler(100, "apple"))
        await store.results.wait_indexed()
        await store.sessions.delete(s.id)
        async with store.db.write() as conn:
            await conn.execute("INSERT INTO blob_fts(blob_fts, rank) VALUES('integrity-check', 1)")
        assert len(await store.results.recall("apple")) == 1
