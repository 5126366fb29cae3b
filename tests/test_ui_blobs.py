"""The result-blob browser: listing by scope, recall search, the windowed viewer (a million
lines), grep with n/N, copying refs — over outputs the real agent loop stored, in the real app."""

from __future__ import annotations

import time

from agent_tui.base.messages import ResultRef, ToolCall, assistant, tool_result
from agent_tui.frontends.tui.screens import blobs
from agent_tui.frontends.tui.screens.blob_rows import (
    BlobRow,
    scope_filter,
    snippet_text,
    syntax_hints,
    terms_pattern,
)
from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from agent_tui.frontends.tui.textual_compat import notifications
from agent_tui.frontends.tui.widgets.blob_viewer import CACHE_WINDOWS, WINDOW, BlobViewer
from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from tests.support.ui_blobs import SIZE, open_blobs, ready
from tests.support.ui_helpers import screen_text, settle, until
from tests.support.ui_session_fixtures import loop_app, run_turns

NOW = 1_700_000_000.0


def line_on_screen(app, number: int) -> bool:
    rows = screen_text(app).split("\n")
    return any(row.lstrip("▶• ").startswith(f"{number} ") for row in rows)


class TestRows:
    def test_cells_use_the_given_clock(self):
        """Size, lines, age (from the frozen now) and reads read naturally; unknowns are —."""
        ref = ResultRef("r_0123456789", 48 * 1024, 1204, "bash", "s_000000000001")
        row = BlobRow(ref, "/p", "s_000000000001", NOW - 180, 3, "FAILED tests/test_cart.py")
        cells = row.cells(NOW)
        assert cells[:6] == ("r_0123456789", "bash", "48 KB", "1 204", "3 min", "3×")
        assert BlobRow(ref, "/p", "s_000000000001").cells(NOW)[4:6] == ("—", "—")
        assert row.uri == "ctx:///p/s_000000000001/r_0123456789"

    def test_snippet_keeps_the_match_in_view(self):
        """A long snippet is cut so its first [match] shows, brackets kept."""
        text = snippet_text("x " * 80 + "[timeout] after 30 s", width=40).plain
        assert "[timeout]" in text and text.startswith("…") and len(text) <= 40

    def test_scope_and_terms(self):
        """Scopes map to list/recall filters; query words become a case-blind regex."""
        assert scope_filter("session", "s_1", "/p") == {"session_id": "s_1", "project": None}
        assert scope_filter("project", "s_1", "/p") == {"session_id": None, "project": "/p"}
        assert scope_filter("all", "s_1", "/p") == {"session_id": None, "project": None}
        assert terms_pattern("deadline OR timeout") == "(?i)(?:deadline|timeout)"

    def test_syntax_hints_from_file_reads(self):
        """A read_file output is highlighted by the path it read."""
        call = ToolCall("c1", "read_file", '{"path": "src/cart.py"}')
        ref = ResultRef("r_aaaaaaaaaa", 10, 1, "read_file")
        history = [assistant(None, (call,)), tool_result(call, "x", ref)]
        assert syntax_hints(history) == {"r_aaaaaaaaaa": "src/cart.py"}


class TestBrowser:
    async def test_lists_the_sessions_outputs(
        self,
        loop_config,
        loop_workspace,
        monkeypatch,
    ):
        """Three turns, three outputs, newest first: ref, tool, size, lines, age, reads and
        the first line; the newest opens in the viewer with line numbers."""
        monkeypatch.setattr(blobs, "wall_clock", lambda: time.time() + 180)
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            history = app.view.session.history
            refs = [m.output_ref.id for m in history if m.output_ref][::-1]
            screen = await open_blobs(pilot)
            assert list(screen.rows) == refs
            text = screen_text(app)
            assert "Blobs · this session · 3 stored output(s)" in text
            assert "turn3 row 1 of the listing" in text and "1 500" in text and "3 min" in text
            assert screen.opened.ref.id == refs[0]
            assert line_on_screen(app, 1) and "turn3 row 2 of the listing" in text

    async def test_search_finds_an_old_output(self, loop_config, loop_workspace):
        """Recall finds turn 2's error among the outputs; opening the hit jumps to the error
        line with the query's words marked."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            services = await app.services()
            await services.store.results.wait_indexed()
            screen = await open_blobs(pilot)
            await pilot.press("ctrl+f", *"deadline exceeded", "enter")
            await ready(pilot, screen, searches=2)
            second = [m.output_ref.id for m in app.view.session.history if m.output_ref][1]
            assert list(screen.rows) == [second]
            assert "search: deadline exceeded · 1 hit(s)" in screen_text(app)
            viewer = screen.viewer
            assert viewer.current == 1501 and viewer.matches == [1501]
            assert "▶1501  ERROR: deadline exceeded" in screen_text(app)

    async def test_scope_switch(self, loop_config, loop_workspace):
        """Another session of this project shows under `this project`; another project's
        output only under `everything`."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 1)
            store = (await app.services()).store
            here = await store.sessions.create(str(loop_workspace), "m")
            there = await store.sessions.create("/elsewhere", "m")
            sibling = await store.results.offload(here.id, "bash", None, "sibling output\n")
            far = await store.results.offload(there.id, "bash", None, "far output\n")
            screen = await open_blobs(pilot)
            assert len(screen.rows) == 1
            await pilot.press("f2")
            await ready(pilot, screen, searches=2)
            assert sibling.id in screen.rows and far.id not in screen.rows
            await pilot.press("f2")
            await ready(pilot, screen, searches=3)
            assert {sibling.id, far.id} <= set(screen.rows)
            assert "Blobs · everything" in screen_text(app)

    async def test_copy_ref_and_uri(self, loop_config, loop_workspace):
        """y copies the ref, Y its ctx:// URI; each is also shown in a notice."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 1)
            screen = await open_blobs(pilot)
            row = screen.opened
            await pilot.press("y")
            assert app.clipboard == row.ref.id
            await pilot.press("Y")
            assert app.clipboard == row.uri and row.uri.startswith("ctx://")
            assert row.ref.id in row.uri and row.session_id in row.uri
            messages = [n.message for n in notifications(app)]
            assert f"Copied {row.ref.id}" in messages and f"Copied {row.uri}" in messages


class TestOpening:
    async def test_ctrl_o_on_a_tool_line_opens_its_output(
        self,
        loop_config,
        loop_workspace,
    ):
        """Ctrl+O on a tool line in the chat opens the browser at that call's stored output (a
        bare `o` is typing, issue 32); Escape goes back to the chat."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 2)
            first = app.query(ToolLine).first()
            first.focus()
            await pilot.press("ctrl+o")
            await until(pilot, lambda: isinstance(app.screen, BlobsScreen), what="the browser")
            screen = app.screen
            await ready(pilot, screen)
            assert screen.opened.ref.id == first.entry.ref
            assert app.view.prompt.text == "", "the key did not leak into the input"
            assert "turn1 row 1 of the listing" in screen_text(app)
            await pilot.press("escape")
            assert not isinstance(app.screen, BlobsScreen)

    async def test_uri_and_unknown_ref(self, loop_config, loop_workspace):
        """`/blobs URI` opens that output; a ref that does not exist is a one-line notice."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 2)
            store = (await app.services()).store
            ref = next(m.output_ref for m in app.view.session.history if m.output_ref)
            uri = (await store.results.resolve(ref.id)).uri
            screen = await open_blobs(pilot, f"/blobs {uri}")
            assert screen.opened.ref.id == ref.id
            await pilot.press("escape")
            await open_blobs(pilot, "/blobs r_00000000ff")
            notices = [n.message for n in notifications(app) if "Cannot open" in n.message]
            assert notices and "r_00000000ff" in notices[0] and "\n" not in notices[0]


class TestViewer:
    async def test_a_million_lines(self, loop_config, loop_workspace):
        """A 1 000 000-line output opens, jumps to its end and to any line, and only a few
        windows of it are ever held (how fast: benchmarks/tui.py)."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            store = (await app.services()).store
            session_id = app.view.session.session_id
            body = "".join(f"log line {i:07d} status=ok\n" for i in range(1, 1_000_001))
            ref = await store.results.offload(session_id, "bash", None, body)
            del body
            screen = await open_blobs(pilot, f"/blobs {ref.id}")
            await pilot.press("end")
            await until(pilot, lambda: screen.viewer.settled)
            await pilot.pause()
            assert line_on_screen(app, 1_000_000)
            assert "log line 1000000 status=ok" in screen_text(app)
            await pilot.press("colon", *"500000", "enter")
            await until(pilot, lambda: screen.viewer.settled)
            await pilot.pause()
            assert "▶ 500000  log line 0500000 status=ok" in screen_text(app)
            await pilot.press("g")
            await until(pilot, lambda: screen.viewer.settled)
            await pilot.pause()
            assert line_on_screen(app, 1)
            held = sum(len(lines) for lines in screen.viewer._cache.values())
            assert held <= CACHE_WINDOWS * WINDOW < ref.line_count // 50

    async def test_grep_and_step_through_matches(
        self,
        loop_config,
        loop_workspace,
    ):
        """`/` greps the open output, n and N step through the matches (wrapping), the header
        counts them; a bad regex is a one-line notice."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 1)
            screen = await open_blobs(pilot)
            viewer = screen.query_one(BlobViewer)
            await pilot.press("enter", "slash", *r"row 1\d00 ", "enter")
            await until(pilot, lambda: viewer.matches and viewer.settled)
            matches = [1000, 1100, 1200, 1300, 1400, 1500]
            assert viewer.matches == matches and viewer.current == 1000
            assert "match 1/6" in screen_text(app)
            await pilot.press("n", "n")
            assert viewer.current == 1200
            await pilot.press("N", "N", "N")
            await until(pilot, lambda: viewer.settled)
            await pilot.pause()
            assert viewer.current == 1500 and "match 6/6" in screen_text(app)
            assert "▶1500  turn1 row 1500 of the listing" in screen_text(app)
            await pilot.press("slash", *"row (", "enter")
            await settle(pilot)
            bad = [n for n in notifications(app) if "invalid regular expression" in n.message]
            assert bad and "\n" not in bad[0].message
            assert viewer.matches == matches


class TestCancelledReads:
    async def test_cancelled_write_leaves_the_store_usable(self, tmp_path):
        """A write cancelled while its BEGIN waits (closing the browser cancels its reads, and
        each read counts an access) is rolled back: later writes still work."""
        import asyncio
        import contextlib
        import sqlite3

        from agent_tui.store import open_store

        path = tmp_path / "c.db"
        store = await open_store(path)
        try:
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")  # our BEGIN now waits in the connection's thread
            loop = asyncio.get_running_loop()
            begun = asyncio.Event()

            def traced(sql: str) -> None:  # runs in the connection's thread as a statement starts
                if sql.startswith("BEGIN"):
                    loop.call_soon_threadsafe(begun.set)

            await store.db.conn.set_trace_callback(traced)
            task = asyncio.ensure_future(store.sessions.create("/p", "m"))
            await begun.wait()  # the BEGIN is running (waiting for the other's lock)
            task.cancel()
            other.execute("ROLLBACK")  # the BEGIN now gets the lock, after its caller was cancelled
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await store.db.conn.set_trace_callback(None)
            other.close()
            info = await store.sessions.create("/p", "m")
            assert (await store.sessions.get(info.id)).project == "/p"
        finally:
            await store.close()
