"""Work on every turn's path is done once, and only when it has something to do.

The loop's own time per turn (benchmarks/turn_overhead.py) is the sum of small pieces run on
every turn; each test here holds one of them to its observable work — files written, rows
updated, budgets measured — never to seconds.
"""

from __future__ import annotations

import os

from agent_tui.agent import window
from agent_tui.compose.factory import build_services
from agent_tui.llm.preflight import _cache_file, cached_ratio
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config


def file_identity() -> tuple[int, int] | None:
    """Each keep rewrites the state file through a new file renamed over it: a new inode."""
    try:
        st = os.stat(_cache_file())
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


async def test_the_calibration_is_kept_when_it_moved_not_on_every_turn(tmp_path, workspace):
    """The ratio moves a little with every reply; keeping it rewrote the state file and the
    session's row on every turn (a file read, a JSON rewrite and a transaction per turn once
    tiktoken is loaded, as it is in the TUI after the first reply). It is kept again only once it
    has moved by KEEP_STEP — a start that close is well inside the pre-flight's margin."""
    with FakeOpenAI(window=32_000, token_scale=1.3) as server:
        services = await build_services(make_config(server, tmp_path / "k.db", 32_000), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            session.meter.counter.wait_exact()
            server.enqueue(Reply(text="one"))
            await collect(session.run_turn("first"))
            store = services.store
            assert store is not None
            kept = await store.sessions.calibration(session.session_id)
            assert kept is not None, "the first ratio learned is kept"
            written = file_identity()
            assert written is not None
            calibration = session.meter.calibration
            ratio = calibration.ratio

            # A reply whose ratio differs by a hair: nothing is rewritten.
            calibration.record(round(1000 * (ratio + window.KEEP_STEP / 4)), 1000, session.history)
            assert calibration.ratio != ratio
            await window.keep_calibration(session)
            assert file_identity() == written
            assert await store.sessions.calibration(session.session_id) == kept

            # A ratio that moved: both are kept again.
            calibration.record(round(1000 * (ratio + 10 * window.KEEP_STEP)), 1000, session.history)
            await window.keep_calibration(session)
            moved = round(calibration.ratio, 4)
            assert file_identity() != written
            assert cached_ratio("openai/fake-model", server.base_url) == moved
            assert await store.sessions.calibration(session.session_id) == {
                "model": session.model,
                "ratio": moved,
            }
        finally:
            await services.close()
