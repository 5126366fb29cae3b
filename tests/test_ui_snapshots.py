"""SVG snapshots of the main screen mid-session (dark, light), the slash menu, the approval
modal and the no-model panel, at 120 × 36.

The session is written to the database first and resumed, so every figure on screen (meter
included) is the same on every run: the workspace path is fixed because the system prompt names
it, and the cursor does not blink. `pytest --snapshot-update` rewrites them after a deliberate
change.
"""

from __future__ import annotations

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.tools.permissions import ApprovalRequest
from tests.support import snapshots
from tests.support.agent_fixtures import make_config
from tests.support.snapshots import ready, resumed_app
from tests.support.ui_helpers import make_app

# The shared fixtures, made this module's own so pytest finds them.
fixed_workspace = snapshots.fixed_workspace
sandbox_off = snapshots.sandbox_off  # autouse

SIZE = (120, 36)


class TestSnapshots:
    def test_main_screen_mid_session(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """Chat with folded tool lines (one unfolded), the meter and the input."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await ready(pilot)
            lines = list(pilot.app.query(ToolLine))
            lines[2].action_toggle_output()
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_main_screen_light(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """The same screen in agent-light stays legible."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace, theme_name="agent-light")
        assert snap_compare(app, run_before=ready, terminal_size=SIZE)

    def test_slash_menu(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """Typing `/c` opens the completion menu under the input."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await ready(pilot)
            await pilot.press("/", "c")
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_approval_modal(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """The approval modal over the session: command, editable prefix, a/s/d."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)
        request = ApprovalRequest(
            "bash", {"command": "git status --short"}, "git status --short", "git status"
        )

        async def run_before(pilot):
            await ready(pilot)
            pilot.app.push_screen(ApprovalScreen(request, where="tab 1 · fix-tests"))
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_no_model_panel(self, snap_compare, tmp_path, fixed_workspace, monkeypatch):
        """Without a model: the panel that says how to set one."""
        # The panel prints the config file's path: keep it the same on every run.
        monkeypatch.setenv("AGENT_TUI_HOME", str(fixed_workspace / "home"))
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}, "sandbox": {"mode": "off"}},
            cwd=fixed_workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        app = make_app(config, fixed_workspace)
        assert snap_compare(app, run_before=ready, terminal_size=SIZE)
