"""The TUI's side of issue 44: pins listed in /context, the compaction record in /context, the
task list's block in the chat, and Shift+Tab's modes with their line; 80 × 24 snapshots of each."""

from __future__ import annotations

import pytest

from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.widgets.chat_items import NoticeItem
from agent_tui.frontends.tui.widgets.mode_line import ModeLine
from testkit.fake_openai import Reply
from tests.support import snapshots as part1
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until

SIZE = (80, 24)
fixed_workspace = part1.fixed_workspace
sandbox_off = part1.sandbox_off

TODOS = [
    {"content": "Read the cart module", "status": "completed", "activeForm": "Reading the cart module"},
    {"content": "Fix the total", "status": "in_progress", "activeForm": "Fixing the total"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


class TestPilot:
    async def test_pin_shows_in_context_with_its_tokens(self, config, workspace):
        """`/pin TEXT` in the TUI, then /context lists the pin with its id and tokens."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/pin never touch the migrations folder")
            await settle(pilot)
            assert "Pinned p1" in "\n".join(
                str(i.entry.text) for i in app.query(NoticeItem)
            ) or "Pinned p1" in screen_text(app)
            await send(pilot, "/context")
            await until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
            text = screen_text(app)
            assert "p1 ·" in text and "never touch the migrations folder" in text

    async def test_the_task_list_block_appears_when_the_model_writes_it(self, server, config, workspace):
        """The model's todo call shows as a compact block: progress, the task in progress, marks."""
        server.enqueue(Reply(tool_calls=[("todo", {"todos": TODOS})]), Reply(text="On it."))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "fix the cart total")
            await settle(pilot)
            text = screen_text(app)
            assert "Tasks 1/3 done · now: Fixing the total" in text
            assert "[x] Read the cart module" in text and "[ ] Run the tests" in text

    async def test_shift_tab_cycles_the_modes_and_shows_them(self, config, workspace):
        """Shift+Tab in the input: accept edits, plan, then default again; the line says which."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            app.view.prompt.focus()
            line = app.query_one(ModeLine)
            assert not line.display
            await pilot.press("shift+tab")
            assert app.view.session.mode == "accept_edits" and line.display
            await pilot.press("shift+tab")
            assert app.view.session.mode == "plan" and "plan mode on" in str(line.render())
            await pilot.press("shift+tab")
            assert app.view.session.mode == "default" and not line.display


class TestSnapshots:
    def test_plan_mode_line(self, snap_compare, server, tmp_path, fixed_workspace):
        """80 × 24: after Shift+Tab twice, `⏸ plan mode on (shift+tab to cycle)` above the meter."""
        app = part1.resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await part1.ready(pilot)
            pilot.app.view.prompt.focus()
            await pilot.press("shift+tab", "shift+tab")
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_task_list_block(self, snap_compare, server, tmp_path, fixed_workspace):
        """80 × 24: the task list's block in the chat, as the model's todo call reports it (the
        event posted directly: a real call's tool line shows its duration, which varies)."""
        from agent_tui.agent import events as ev
        from agent_tui.context.side_state import parse_todos
        from agent_tui.frontends.tui.events import AgentEventMessage

        app = part1.resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await part1.ready(pilot)
            view = pilot.app.view
            view.post_message(AgentEventMessage(ev.SideStateChanged(tuple(parse_todos(TODOS)), (), 2000)))
            await until(pilot, lambda: "Tasks 1/3 done" in screen_text(pilot.app), what="the task block")
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_pins_in_context(self, snap_compare, server, tmp_path, fixed_workspace):
        """80 × 24: /context's footer lists the pin with its tokens."""
        app = part1.resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await part1.ready(pilot)
            await send(pilot, "/pin never touch the migrations folder")
            await part1.ready(pilot)
            await send(pilot, "/context")
            await until(pilot, lambda: isinstance(pilot.app.screen, ContextScreen), what="/context")
            body = pilot.app.screen.query_one("#context-body")
            body.scroll_end(animate=False)
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
