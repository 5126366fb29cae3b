"""A big output bash streams (issue 42): stored durably before the next request (its file and
row) but chunked and compressed after it; its view built from what was kept in memory, byte for
byte the store's; a crash just after the request loses nothing; recall still finds it at once."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.store import open_store
from agent_tui.store.kept import KeptEnds
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config, of_type
from tests.support.offload import (
    big_lines,
    kill_when_the_request_arrives,
    random_output,
    read_on,
    turn_with_compression_held,
)


@pytest.fixture
def big_log(workspace: Path) -> list[str]:
    lines = big_lines(40_000)  # ~4.8 MB: several slices
    (workspace / "big.log").write_text("".join(f"{line}\n" for line in lines))
    return lines


class TestStreamedSendFirst:
    async def test_request_leaves_while_compression_is_held(self, server, workspace, tmp_path, big_log):
        """With every compression worker busy, the request carrying a big bash output's view
        still reaches the server: nothing of its storage waits for compression. Then the
        output is whole by its ref, the view sent is the store's, and recall finds it."""
        svc = await build_services(make_config(server, tmp_path / "a.db"), workspace=workspace)
        server.enqueue(Reply(tool_calls=[("bash", {"command": "cat big.log"})]), Reply(text="done"))
        try:
            session = await svc.new_session(yes=True)
            events = await turn_with_compression_held(svc, session, "show the log", server)
            ref = of_type(events, ev.ToolCallFinished)[0].ref
            assert ref is not None
            assert await svc.store.results.get_text(ref) == "".join(f"{line}\n" for line in big_log)
            sent = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
            svc.store.results._kept.clear()  # from here on, the store's own view
            stored_view = await svc.store.results.view(ref, 4096, 2000)
            assert sent.startswith(stored_view)
            hits = await svc.store.results.recall(big_log[31_234].split()[1])
            assert ref.id in [hit.ref.id for hit in hits]
        finally:
            await svc.close()


def _pieces(data: bytes, rng: random.Random) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        step = rng.choice([1, 7, 100, 4096, 65536])
        out.append(data[pos : pos + step])
        pos += step
    return out


class TestKeptView:
    async def test_view_from_the_kept_ends_is_the_stores(self, tmp_path):
        """300 seeded outputs (empty, CRLF, multibyte, very long lines), streamed in pieces of
        random sizes past small kept ends: every view built from what was kept is the view the
        store builds by reading the output back; when the ends do not suffice it says so."""
        rng = random.Random(42)
        built = fell_back = 0
        async with await open_store(tmp_path / "v.db") as store:
            store.results.chunk_size = 256
            session = await store.sessions.create(str(tmp_path), "m")
            for case in range(300):
                data = random_output(rng).encode()
                if rng.random() < 0.1:
                    data += b"\xff\xfe broken utf-8 \xc3\n"
                size, width = rng.randrange(256, 4096), rng.randrange(16, 200)
                kept = KeptEnds(keep=rng.choice([512, 2048, 8192, 1 << 20]))
                for piece in _pieces(data, rng):
                    kept.add(piece)
                ref = await store.results.offload(session.id, "bash", None, data)
                stored = await store.results.view(ref, size, width)
                memory = kept.view("bash", ref.id, size, width)
                if memory is None:
                    fell_back += 1
                    assert not kept.whole, f"case {case}: a whole output always has its view"
                    continue
                built += 1
                assert memory == stored, f"case {case}: size {size}, width {width}, keep {kept.keep}"
        assert built > 100 and fell_back > 0

    async def test_long_line_past_the_kept_ends_reads_the_store(self, tmp_path):
        """A streamed output whose last line is longer than what is kept of it: the view is
        the store's (read back), not one made up from a piece of that line."""
        data = b"first\n" + b"x" * 600_000 + b"\n" + b"y" * 700_000

        async def stream():
            for start in range(0, len(data), 65536):
                yield data[start : start + 65536]

        async with await open_store(tmp_path / "v.db") as store:
            session = await store.sessions.create(str(tmp_path), "m")
            ref = await store.results.offload(session.id, "bash", None, stream())
            assert store.results._kept[ref.id].view("bash", ref.id, 4096, 2000) is None
            view = await store.results.view(ref, 4096, 2000)
            store.results._kept.clear()
            assert view == await store.results.view(ref, 4096, 2000)
            assert view.startswith("first\n" + "x" * 2000) and "y" * 2000 in view


class TestRecallAtOnce:
    @pytest.mark.parametrize("size_lines", [50, 5_000])
    async def test_output_stored_a_moment_before_is_found(self, tmp_path, size_lines):
        """recall right after an output is stored (small or big, whole or streamed) finds it:
        the search indexes what is pending first."""
        lines = big_lines(size_lines)
        lines[size_lines // 2] = "the needle zanzibar-quokka-17 sits here"
        text = "".join(f"{line}\n" for line in lines)

        async def stream():
            yield text.encode()

        async with await open_store(tmp_path / "r.db") as store:
            session = await store.sessions.create(str(tmp_path), "m")
            whole = await store.results.offload(session.id, "mcp", None, text)
            streamed = await store.results.offload(session.id, "bash", None, stream())
            hits = await store.results.recall("zanzibar-quokka-17")
            assert {whole.id, streamed.id} <= {hit.ref.id for hit in hits}


class TestCrashAfterStreamedRequest:
    def test_kill_when_the_request_arrives_loses_no_streamed_output(
        self, server, workspace, tmp_path, big_log
    ):
        """`run` killed (SIGKILL) the moment the request carrying a big bash output's ref
        reaches the server: the next `run --continue` reads any line by that ref, and after
        reopening the output is whole and found by recall."""
        db = tmp_path / "k.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "cat big.log"})]), Reply(hang=True))
        ref_id = kill_when_the_request_arrives(server, workspace, db, "show the log")
        page = read_on(server, workspace, db, ref_id, 30_000)
        assert f"30000\t{big_log[29_999]}" in page and f"30001\t{big_log[30_000]}" in page

        async def reopened() -> None:
            async with await open_store(db) as store:
                assert await store.results.get_text(ref_id) == "".join(f"{line}\n" for line in big_log)
                hits = await store.results.recall(big_log[12_345].split()[1])
                assert ref_id in [hit.ref.id for hit in hits]

        asyncio.run(reopened())


class TestViewBoundary:
    @pytest.mark.parametrize("extra", [-1, 0, 1])
    async def test_output_becomes_a_view_just_past_the_threshold(self, server, workspace, tmp_path, extra):
        """An output of exactly `result_offload_threshold` bytes reaches the model whole; one
        byte more and it is a view (head, tail, footer naming the ref)."""
        threshold = 2_000
        line = "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789\n"
        (workspace / "lines.txt").write_text(line * 100)
        config = make_config(server, tmp_path / "b.db", agent={"result_offload_threshold": threshold})
        svc = await build_services(config, workspace=workspace)
        try:
            size = threshold + extra
            server.enqueue(
                Reply(tool_calls=[("bash", {"command": f"head -c {size} lines.txt"})]), Reply(text="ok")
            )
            session = await svc.new_session(yes=True)
            async for _ in session.run_turn("print it"):
                pass
            sent = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
            printed = (line * 100)[:size]
            if extra <= 0:
                assert "stored whole as ref" not in sent and sent.startswith(printed.rstrip("\n"))
            else:
                assert "stored whole as ref" in sent and "lines omitted" in sent
        finally:
            await svc.close()


class TestIndexerAtIdle:
    async def test_backlog_waits_while_the_store_is_busy_and_goes_once_quiet(self, tmp_path):
        """A backlog left by an earlier run is not indexed while the turn's connection is in use
        (after the open, steps reading and writing every 50 ms); once it is quiet the indexer
        takes it all, on its own, without a search asking."""
        text = "".join(f"{line}\n" for line in big_lines(8_000))
        async with await open_store(tmp_path / "i.db") as store:
            session = await store.sessions.create(str(tmp_path), "m")
            await store.results.offload(session.id, "mcp", None, text)
            await store.results.spool.wait()
            backlog = await store.results.indexer.pending()
        assert backlog > 5
        async with await open_store(tmp_path / "i.db") as store:
            loop = asyncio.get_running_loop()
            busy_until = loop.time() + 1.5
            while loop.time() < busy_until:  # a burst of steps: the connection never quiet
                async with store.db.write() as conn:
                    await conn.execute("UPDATE sessions SET title = title WHERE id = ?", (session.id,))
                await asyncio.sleep(0.05)
            assert await store.results.indexer.pending() == backlog
            assert await wait_until_async(lambda: store.results.indexer.pending(), 0, 30)


async def wait_until_async(probe, wanted: int, timeout: float) -> bool:
    """Poll the coroutine function `probe` until it returns `wanted` (True) or `timeout` passes;
    seldom (0.5 s), so that the polling itself leaves the store quiet."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while await probe() != wanted:
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.5)
    return True
