"""A big output that was not streamed into the store (issue 31): the loop builds its view from
the text in hand instead of reading it back, and the ref it sends is stored before the request,
so a crash right after the request loses nothing read_result needs."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.context.views import inline_view
from agent_tui.store import open_store
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config, of_type
from tests.support.offload import (
    big_lines,
    grep_output,
    kill_when_the_request_arrives,
    random_output,
    read_on,
    turn_with_compression_held,
)


@pytest.fixture
def big_file(workspace: Path) -> list[str]:
    lines = big_lines(4_000)
    (workspace / "big.log").write_text("".join(f"{line}\n" for line in lines))
    return lines


class TestSendFirst:
    async def test_next_request_leaves_while_compression_is_held(self, server, workspace, tmp_path, big_file):
        """With the store's compression workers all busy, the request carrying a big grep
        output's view still reaches the server; the output is then read whole by its ref, and
        its chunks land in the database and in recall's index."""
        svc = await build_services(make_config(server, tmp_path / "a.db"), workspace=workspace)
        server.enqueue(
            Reply(tool_calls=[("grep", {"pattern": "row", "max_results": 100_000})]),
            Reply(text="done"),
        )
        try:
            events = await turn_with_compression_held(svc, await svc.new_session(), "find the rows", server)
            finished = of_type(events, ev.ToolCallFinished)[0]
            ref = finished.ref
            assert ref is not None
            expected = grep_output(big_file, "big.log")
            assert await svc.store.results.get_text(ref) == expected
            sent = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
            assert f"stored whole as ref {ref.id}" in sent
            assert sent == await svc.store.results.view(ref, 4096, 2000)
            await svc.store.results.wait_indexed()
            assert not (svc.store.results.spool.folder / ref.id).exists()
            assert ref.id in [hit.ref.id for hit in await svc.store.results.recall(big_file[77].split()[1])]
        finally:
            await svc.close()


class TestViewFromMemory:
    async def test_matches_the_view_read_back_from_the_store(self, tmp_path):
        """The view built from the text in memory is, byte for byte, the one the store builds
        by reading the stored output back (300 seeded outputs, chunks of 256 bytes)."""
        rng = random.Random(31)
        async with await open_store(tmp_path / "v.db") as store:
            store.results.chunk_size = 256
            session = await store.sessions.create(str(tmp_path), "m")
            for case in range(300):
                text = random_output(rng)
                size, width = rng.randrange(256, 4096), rng.randrange(16, 200)
                ref = await store.results.offload(session.id, "mcp", None, text)
                stored = await store.results.view(ref, size, width)
                memory = inline_view(text, size, width, "mcp", ref.id, ref.byte_size)
                assert memory == stored, f"case {case}: size {size}, width {width}"


class TestCrashAfterTheRequest:
    def test_kill_when_the_request_arrives_loses_nothing_read_result_needs(
        self, server, workspace, tmp_path, big_file
    ):
        """`run` killed (SIGKILL) the moment the request carrying a big grep output's ref
        reaches the server: the next `run --continue` reads any line of it by that ref, and
        the output is whole and searchable by recall once the store is reopened."""
        db = tmp_path / "k.db"
        server.enqueue(
            Reply(tool_calls=[("grep", {"pattern": "row", "max_results": 100_000})]),
            Reply(hang=True),  # the request is in; the answer never comes
        )
        ref_id = kill_when_the_request_arrives(server, workspace, db, "find the rows")
        expected = grep_output(big_file, "big.log").split("\n")
        page = read_on(server, workspace, db, ref_id, 3_000)
        assert f"3000\t{expected[2_999]}" in page and f"3001\t{expected[3_000]}" in page

        async def reopened() -> None:
            async with await open_store(db) as store:
                await store.results.wait_indexed()
                ref = (await store.results.resolve(ref_id)).ref
                assert ref.line_count == len(expected)
                assert (await store.results.get_text(ref_id)).split("\n") == expected
                hits = await store.results.recall(big_file[1_234].split()[1])
                assert ref_id in [hit.ref.id for hit in hits]

        asyncio.run(reopened())


class TestSpoolLeftBehind:
    async def test_output_closed_before_its_chunks_is_whole_after_reopen(self, tmp_path):
        """A store closed before a big output's chunks were written keeps its file; the next
        open serves every line by the ref, then writes the chunks and removes the file."""
        text = grep_output(big_lines(3_000), "a.log")
        async with await open_store(tmp_path / "s.db") as store:
            session = await store.sessions.create(str(tmp_path), "m")
            ref = await store.results.offload(session.id, "mcp", "call_1", text)
            spooled = store.results.spool.folder / ref.id
            assert spooled.exists()
        assert spooled.exists()
        async with await open_store(tmp_path / "s.db") as store:
            page = await store.results.read(ref.id, offset=2_999, limit=2)
            assert page.splitlines()[1:3] == [
                f"2999\t{text.splitlines()[2_998]}",
                f"3000\t{text.splitlines()[2_999]}",
            ]
            await store.results.wait_indexed()
            assert not spooled.exists()
            rows = await store.db.fetchone("SELECT count(*) FROM blob_chunks WHERE blob_id = ?", (ref.id,))
            assert rows[0] > 0 and await store.results.get_text(ref.id) == text

    async def test_file_without_its_row_is_removed_only_when_old(self, tmp_path):
        """A spool file whose row never committed is removed on open once it is an hour old;
        a fresh one (another process may be about to commit it) is left alone."""
        async with await open_store(tmp_path / "s.db") as store:
            folder = store.results.spool.folder
        folder.mkdir(exist_ok=True)
        old, fresh = folder / "r_00000000aa", folder / "r_00000000bb"
        old.write_bytes(b"lost\n")
        fresh.write_bytes(b"coming\n")
        os.utime(old, (time.time() - 7_200, time.time() - 7_200))
        async with await open_store(tmp_path / "s.db"):
            pass
        assert not old.exists() and fresh.exists()
