"""SVG snapshots at 80 × 24, the smallest terminal the app promises to read well in: the main
view during a turn (working line, streaming reply, meter), the approval dialog with every action
visible, /context with its sections stacked, and the blob browser.

The fixtures and sessions are those of the 120 × 36 snapshots (fixed workspace, stored session,
fixed server replies, frozen clocks). `pytest --snapshot-update` rewrites them after a
deliberate change.
"""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.frontends.tui.events import AgentEventMessage
from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.frontends.tui.widgets.status import WorkingLine
from agent_tui.tools.permissions import ApprovalRequest
from tests.support import snapshot_session as part2
from tests.support import snapshots as part1
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import until

SIZE = (80, 24)
fixed_workspace = part1.fixed_workspace
sandbox_off = part1.sandbox_off  # autouse: the same picture with or without bubblewrap here
snap_server = part2.snap_server


@pytest.fixture
def fixed_workspace2(tmp_path, monkeypatch):
    """part2's workspace (its logs are what the session reads), shown as `~/agent-tui-snapshot-ws2`."""
    with part1.fixed_home(monkeypatch, "agent-tui-snapshot-ws2") as path:
        (path / "logs").mkdir()
        for day in (1, 2):
            (path / "logs" / f"day{day}.log").write_text(part2.app_log(day))
        yield path


class TestSmallTerminal:
    def test_main_view_during_a_turn(self, snap_compare, server, tmp_path, fixed_workspace, monkeypatch):
        """A reply streaming: the working line says what runs, for how long, tokens, Esc."""
        app = part1.resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)
        monkeypatch.setattr(WorkingLine, "clock", staticmethod(lambda: 1000.0))

        async def run_before(pilot):
            await part1.ready(pilot)
            view = pilot.app.view
            view.working.start("thinking")
            view.working._started = 995.8
            view.post_message(AgentEventMessage(ev.StepStarted(1)))
            view.post_message(AgentEventMessage(ev.TextDelta("Reading the failing test first, then ")))
            view.post_message(AgentEventMessage(ev.TextDelta("the cart module it exercises.")))
            await until(pilot, lambda: view.working.state == "streaming", what="streaming")
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_approval_dialog(self, snap_compare, server, tmp_path, fixed_workspace):
        """Every action (allow once, this session, always, deny) and the prefix field fit."""
        app = part1.resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)
        request = ApprovalRequest(
            "bash",
            {"command": "git status --short && git diff --stat"},
            "git status --short && git diff --stat",
            "git status",
        )

        async def run_before(pilot):
            await part1.ready(pilot)
            pilot.app.push_screen(ApprovalScreen(request, where="tab 1 · fix-tests"))
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_context(self, snap_compare, snap_server, tmp_path, fixed_workspace2, monkeypatch):
        """/context stacks its sections instead of squeezing columns."""
        app = part2.snapshot_app(snap_server, tmp_path, fixed_workspace2, monkeypatch, "agent-dark")
        assert snap_compare(app, run_before=part2.context_mid_session, terminal_size=SIZE)

    def test_blob_browser(self, snap_compare, snap_server, tmp_path, fixed_workspace2, monkeypatch):
        app = part2.snapshot_app(snap_server, tmp_path, fixed_workspace2, monkeypatch, "agent-dark")
        assert snap_compare(app, run_before=part2.blob_browser, terminal_size=SIZE)
