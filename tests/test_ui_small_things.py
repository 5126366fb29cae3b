"""Issue 16's small things, each through the real app: screens at 80 × 24 (approval buttons,
/context), notices clear of the meter, a compaction reported once, tab labels, undo snapshots in
/blobs, the blob viewer's `/` and `n` after `g`, the error line kept after /model, `--help`."""

from __future__ import annotations

import pytest
from textual.widgets import Button, Input
from typer.testing import CliRunner

from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.frontends.tui.screens.blob_rows import tool_cell
from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.widgets.blob_viewer import BlobViewer
from agent_tui.frontends.tui.widgets.chat_items import NoticeItem
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.session_view import tab_label
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, notices, screen_text, send, settle, until, until_approval

SMALL = (80, 24)


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


def on_screen(widget, size=SMALL) -> bool:
    region = widget.region
    return region.width > 0 and region.right <= size[0] and region.bottom <= size[1] and region.y >= 0


class TestAt80x24:
    async def test_every_approval_action_is_visible_and_the_prefix_editable(self, server, config, workspace):
        """The buttons ended at `[w] Always (.agent-tui.tom` with Deny off screen; Tab went
        to a button and the first key typed in the field replaced the suggestion."""
        long = "git status --short && " + " && ".join(f"echo step{i}" for i in range(40))
        server.enqueue(Reply(tool_calls=[("bash", {"command": long})]), Reply(text="ok"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "status")
            await until_approval(pilot)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ApprovalScreen)
            for button in screen.query(Button):
                assert on_screen(button), button.id
            field = screen.query_one("#approval-prefix", Input)
            assert on_screen(field)
            await pilot.press("tab")
            assert field.has_focus and field.cursor_position == len(field.value)
            await pilot.press("space", "x")
            assert field.value.endswith(" x") and len(field.value) > 2
            await pilot.press("tab")
            assert not field.has_focus
            await pilot.press("4", "enter")
            await settle(pilot)

    async def test_context_stacks_its_sections(self, server, config, workspace):
        """`/context` squeezed "Largest items" to `tool r_badd1… 1 2…` and the header to `effecti`."""
        server.enqueue(Reply(text="hello"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            await send(pilot, "/context")
            await until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
            await pilot.pause()
            screen = app.screen
            assert screen.has_class("-narrow")
            assert "effective" in screen_text(app)  # the header wraps, it is not cut
            seen = ""
            for _ in range(8):  # the stacked sections scroll
                seen += screen_text(app)
                await pilot.press("pagedown")
                await pilot.pause()
            assert "Largest items" in seen and "If you compact now" in seen and "Session cost" in seen
            table = screen.query_one("#context-largest")
            assert table.region.width >= 60  # the whole width, not a squeezed column

    async def test_notices_never_cover_the_meter(self, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL, notifications=True) as pilot:
            await settle(pilot)
            app.notify("something long enough to be a real notice " * 3, timeout=30)
            await pilot.pause()
            await pilot.pause()
            from textual.widgets._toast import Toast

            meter = app.query_one(ContextMeter).region
            toasts = list(app.query(Toast))
            assert toasts
            for toast in toasts:
                assert not toast.region.overlaps(meter)


class TestReports:
    async def test_a_compaction_is_reported_once(self, server, config, workspace):
        server.enqueue(Reply(text="one " * 300), Reply(text="two " * 300), Reply(text="<summary>s</summary>"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "first")
            await settle(pilot)
            await send(pilot, "second")
            await settle(pilot)
            app.clear_notifications()
            await send(pilot, "/compact")
            await settle(pilot)
            lines = [
                i.entry.text
                for i in app.query(NoticeItem)
                if i.entry.text.startswith(("Compact", "Compaction"))
            ]
            assert len(lines) == 1, lines
            assert "ompact" not in notices(app)

    async def test_error_line_survives_model_switch(self, server, config, workspace):
        """After /model the earlier error line disappeared (the chat was reloaded)."""
        from testkit.fake_openai import Reply as R

        server.enqueue(R(status=400, error_body={"error": {"message": "upstream exploded"}}))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            errors = [i.entry.text for i in app.query(NoticeItem) if i.entry.level == "error"]
            assert errors
            await send(pilot, "/model openai/fake-model-2")
            await settle(pilot)
            after = [i.entry.text for i in app.query(NoticeItem) if i.entry.level == "error"]
            assert after == errors
            assert app.view.session.model.endswith("fake-model-2")

    async def test_new_session_cost_reads_like_its_siblings(self, server, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/new")
            await settle(pilot)
            await send(pilot, "/context")
            await until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
            await pilot.pause()
            assert "Session cost: none yet" in screen_text(app)
            assert "$0.0000" not in screen_text(app)


class TestLabels:
    def test_tab_label_says_when_it_was_cut(self):
        assert tab_label("fix the flaky cart tests in the checkout module") == "fix the flaky cart tests in…"
        assert tab_label("short") == "short" and tab_label("  ") == "new"

    def test_undo_snapshots_are_labelled_apart(self):
        cell = tool_cell("checkpoint:edit_file")
        assert str(cell) == "edit snapshot" and tool_cell("bash") == "bash"

    def test_help_prints_config_tables(self):
        from agent_tui.frontends.cli.main import app

        runner = CliRunner()
        out = runner.invoke(app, ["--help"]).output
        assert "[mcp.servers.NAME]" in out
        out = runner.invoke(app, ["sessions", "list", "--help"]).output
        assert "[store] db" in " ".join(out.split())


class TestBlobViewer:
    async def test_slash_keeps_trailing_spaces_and_n_after_g_starts_at_the_top(self, config, workspace):
        body = "".join(f"error in step {i}\n" if i % 2 else f"err code {i}\n" for i in range(1, 201))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            store = (await app.services()).store
            ref = await store.results.offload(app.view.session.session_id, "bash", None, body)
            await send(pilot, f"/blobs {ref.id}")
            await until(pilot, lambda: isinstance(app.screen, BlobsScreen), what="the browser")
            screen = app.screen
            viewer = screen.query_one(BlobViewer)
            await until(pilot, lambda: viewer.settled and viewer.line_count == 200, what="the viewer")
            viewer.focus()
            await pilot.press("slash", *"err", "space", "enter")
            await until(pilot, lambda: bool(viewer.matches), what="the matches")
            assert viewer.matches[:3] == [2, 4, 6]  # `err ` is not `error`
            await pilot.press("n", "n", "n")
            assert viewer.current == 8
            await pilot.press("G", "g", "n")
            assert viewer.current == 2  # from the top, not after the old match


class TestToolLineAt80Columns:
    async def test_the_command_stays_readable_beside_a_long_status(self, server, config, workspace):
        """At 80 columns `exit 0 · … · ref r_…` squeezed the line to `▸ ba…`: the command the
        user needs to read gave way to the status. Now the status is shortened first."""
        command = "seq 1 3000 | sed s/^/line-number-/"
        server.enqueue(Reply(tool_calls=[("bash", {"command": command})]), Reply(text="done"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "count")
            await until_approval(pilot)
            await pilot.press("1", "enter")
            await until(pilot, lambda: "done" in screen_text(app), what="the reply")
            await settle(pilot)
            assert "bash  seq 1 3000 | sed" in screen_text(app)
