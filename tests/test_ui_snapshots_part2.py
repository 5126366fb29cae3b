"""SVG snapshots of /context and the blob browser, in agent-dark and agent-light, at 120 × 36.

Everything on screen is fixed: the session (three tool outputs, stored whole under fixed ref ids)
is written to the database first; the turns and the compaction the chart shows run through the
real loop against the local test server, whose replies are fixed; ages are measured from a frozen
clock; the workspace path is fixed because the system prompt names it. `pytest --snapshot-update`
rewrites the pictures after a deliberate change.
"""

from __future__ import annotations

import pytest

from tests.support import snapshot_session
from tests.support.snapshot_session import app_log, blob_browser, context_mid_session, snapshot_app
from tests.support.snapshots import fixed_home
from tests.support.ui_helpers import until

# The shared fixture, made this module's own so pytest finds it.
snap_server = snapshot_session.snap_server

SIZE = (120, 36)


@pytest.fixture
def fixed_workspace(tmp_path, monkeypatch):
    """A workspace at one fixed path (tests/support/snapshots.fixed_home), shown as
    `~/agent-tui-snapshot-ws2`, with two days of logs."""
    with fixed_home(monkeypatch, "agent-tui-snapshot-ws2") as path:
        (path / "logs").mkdir()
        for day in (1, 2):
            (path / "logs" / f"day{day}.log").write_text(app_log(day))
        yield path


class TestSnapshotsPart2:
    @pytest.mark.parametrize("theme", ["agent-dark", "agent-light"])
    def test_context(self, snap_compare, snap_server, tmp_path, fixed_workspace, monkeypatch, theme):
        """/context mid-session: table, chart with the compaction, largest items, savings."""
        app = snapshot_app(snap_server, tmp_path, fixed_workspace, monkeypatch, theme)
        assert snap_compare(app, run_before=context_mid_session, terminal_size=SIZE)

    @pytest.mark.parametrize("theme", ["agent-dark", "agent-light"])
    def test_blob_browser(self, snap_compare, snap_server, tmp_path, fixed_workspace, monkeypatch, theme):
        """The browser: outputs with ages from a frozen clock, the newest open in the viewer."""
        app = snapshot_app(snap_server, tmp_path, fixed_workspace, monkeypatch, theme)
        assert snap_compare(app, run_before=blob_browser, terminal_size=SIZE)

    def test_blob_grep(self, snap_compare, snap_server, tmp_path, fixed_workspace, monkeypatch):
        """A grep in the viewer: matches marked in the gutter and in the line."""
        app = snapshot_app(snap_server, tmp_path, fixed_workspace, monkeypatch, "agent-dark")

        async def run_before(pilot):
            await blob_browser(pilot)
            await pilot.press("down", "down")
            await blob_browser_grep(pilot)

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


async def blob_browser_grep(pilot) -> None:
    screen = pilot.app.screen
    await until(pilot, lambda: screen.viewer.settled, what="the viewer")
    await pilot.press("enter", "slash", *"FAILED|WARNING", "enter")
    await until(pilot, lambda: len(screen.viewer.matches) == 3, what="the matches")
    await pilot.press("n")
    await until(pilot, lambda: screen.viewer.settled, what="the viewer")
    pilot.app.clear_notifications()
    await pilot.pause()
