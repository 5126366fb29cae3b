"""Catastrophic regexes (`(a|aa)+$`, `(a+)+$`) in grep, grep_result, `agent-tui blobs grep` and
the blob browser: off the event loop (a ticker keeps running), cancellable, and stopped at the
[tools] search_timeout budget with "search stopped after N s; narrow the pattern".

Under plain `re` each of these searches ran for hours holding the GIL (the TUI froze, Ctrl-C was
ignored); every test here would have hung."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

from agent_tui.frontends.tui.textual_compat import notifications
from agent_tui.tools.base import ToolContext, ToolServices
from agent_tui.tools.context_tools import GrepResult
from agent_tui.tools.search import GrepTool

EVIL = "(a|aa)+$"
"""Exponential backtracking in `re` and in `regex` alike (the engine's timeout is what ends it)."""
LINE = "a" * 48 + "b"


class Ticker:
    """Counts how often the event loop got to run while something else was awaited."""

    def __init__(self) -> None:
        self.ticks = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            self.ticks += 1
            await asyncio.sleep(0.01)

    def __enter__(self) -> Ticker:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


def search_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "bounded-search"]


@pytest.fixture
def evil_tree(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("ok line\n" + (LINE + "\n") * 3)
    return ws


class TestGrepTool:
    async def test_catastrophic_pattern_stops_at_the_budget(self, evil_tree):
        """grep with (a|aa)+$ returns a 'search stopped after 0.5 s; narrow the pattern' result,
        and the event loop kept ticking meanwhile."""
        ctx = ToolContext(workspace=evil_tree, session_id="s", call_id="c", search_timeout=0.5)
        with Ticker() as ticker:
            out = await GrepTool().run({"pattern": EVIL}, ctx)
        assert "search stopped after 0.5 s; narrow the pattern" in out.text
        assert out.meta["stopped"] is True and not out.is_error
        assert ticker.ticks > 1

    async def test_nested_plus_pattern_finishes(self, evil_tree):
        """The issue's own (a+)+$ is answered (the engine does not backtrack on it)."""
        ctx = ToolContext(workspace=evil_tree, session_id="s", call_id="c", search_timeout=5)
        out = await GrepTool().run({"pattern": "(a+)+b$"}, ctx)
        assert out.meta["matches"] == 3 and not out.meta["stopped"]

    async def test_cancel_returns_at_once_and_the_worker_ends(self, evil_tree):
        """Cancelling a running grep returns to the caller while the regex is still busy; the
        abandoned worker stops by itself (the cancel flag or the budget)."""
        ctx = ToolContext(workspace=evil_tree, session_id="s", call_id="c", search_timeout=3)
        before = set(search_threads())
        task = asyncio.create_task(GrepTool().run({"pattern": EVIL}, ctx))
        for _ in range(500):
            if set(search_threads()) - before:
                break
            await asyncio.sleep(0.01)
        worker = (set(search_threads()) - before).pop()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert worker.is_alive()  # the caller did not wait for the regex
        worker.join(timeout=30)
        assert not worker.is_alive()


class TestGrepResult:
    async def test_grep_result_stops_and_loop_ticks(self, tmp_path):
        """grep_result over a stored output with (a|aa)+$: the partial result ends with the
        stop note; the loop kept running (the scan used to run on it)."""
        from agent_tui.store import StoreSettings, open_store

        store = await open_store(tmp_path / "s.db", StoreSettings(search_timeout=0.5))
        try:
            session = await store.sessions.create(str(tmp_path), "m")
            body = "error: one\n" + (LINE + "\n") * 20
            ref = await store.results.offload(session.id, "bash", "c1", body)
            ctx = ToolContext(
                workspace=tmp_path, session_id=session.id, call_id="c2", services=ToolServices(store=store)
            )
            with Ticker() as ticker:
                out = await GrepResult().run({"ref_id": ref.id, "pattern": f"error|{EVIL}"}, ctx)
            assert "1:error: one" in out.text
            assert "[search stopped after 0.5 s; narrow the pattern" in out.text
            assert ticker.ticks > 1
            ok = await store.results.grep(ref.id, "one")
            assert "1:error: one" in ok and "stopped" not in ok
        finally:
            await store.close()


class TestBlobsGrepCommand:
    def test_cli_stops_with_one_line_and_exit_1(self, tmp_path):
        """`agent-tui blobs grep REF '(a|aa)+$' --timeout 0.5` ends with the note, exit 1."""
        from agent_tui.store import open_store

        db = tmp_path / "c.db"

        async def seed() -> str:
            store = await open_store(db)
            try:
                session = await store.sessions.create(str(tmp_path), "m")
                ref = await store.results.offload(session.id, "bash", "c1", (LINE + "\n") * 5)
                return ref.id
            finally:
                await store.close()

        ref = asyncio.run(seed())
        env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "agent_tui.frontends.cli.main",
                "blobs",
                "grep",
                ref,
                EVIL,
                "--timeout",
                "0.5",
                "--db",
                str(db),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert done.returncode == 1, done.stderr
        assert "search stopped after 0.5 s; narrow the pattern" in done.stdout
        assert "Traceback" not in done.stderr


class TestBlobBrowser:
    async def test_search_keeps_the_app_ticking(self, agent_server, tmp_path, loop_workspace):
        """`/` with (a|aa)+$ in the blob browser: an interval timer keeps firing while the
        search runs, and it ends in a one-line 'search stopped' notice."""
        from tests.support.agent_fixtures import make_config
        from tests.support.ui_blobs import SIZE, open_blobs
        from tests.support.ui_helpers import settle, until
        from tests.support.ui_session_fixtures import loop_app

        config = make_config(agent_server, tmp_path / "b.db", window=16_384, tools={"search_timeout": 1.0})
        app = loop_app(config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.view.session
            ref = await session.store.results.offload(session.session_id, "bash", "c1", (LINE + "\n") * 50)
            screen = await open_blobs(pilot, f"/blobs {ref.id}")
            ticks = []
            timer = app.set_interval(0.02, lambda: ticks.append(1))
            await pilot.press("slash", *EVIL, "enter")
            await until(pilot, lambda: screen.viewer.settled)

            def stopped() -> list:
                return [n for n in notifications(app) if "search stopped after 1 s" in n.message]

            await until(pilot, lambda: bool(stopped()), timeout=30, what="the stop notice")
            timer.stop()
            assert "narrow the pattern" in stopped()[0].message and "\n" not in stopped()[0].message
            assert len(ticks) > 2

    def test_match_marks_stop_on_a_catastrophic_pattern(self):
        """Marking matches while drawing a line gives up within its budget (Rich's
        highlight_regex with `re` would hang the render for hours on this line)."""
        from agent_tui.base.bounded_regex import compile_regex
        from agent_tui.frontends.tui.widgets.blob_viewer import HighlightPattern

        assert list(HighlightPattern(compile_regex(EVIL)).finditer(LINE * 40)) == []
        marks = HighlightPattern(compile_regex("b+")).finditer("aabba")
        assert [(m.start(), m.end()) for m in marks] == [(2, 4)]
