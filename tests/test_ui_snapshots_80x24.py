"""SVG snapshots at 80 × 24 for issue 32: the no-model screen keeps the input and meter on
screen, and `/tools` prints its whole list as a block in the chat (not a toast).

Fixtures are those of the 120 × 36 snapshots (fixed workspace and home, stored session, sandbox
off, no cursor blink). `pytest --snapshot-update` rewrites them after a deliberate change.
"""

from __future__ import annotations

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from tests.support import snapshots as part1
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, settle, until

SIZE = (80, 24)
fixed_workspace = part1.fixed_workspace
sandbox_off = part1.sandbox_off  # autouse


class TestSnapshots80x24:
    def test_no_model_screen_keeps_the_input(self, snap_compare, tmp_path, fixed_workspace, monkeypatch):
        """Without a model at 80 × 24: the panel scrolls, the meter and the input stay below it."""
        monkeypatch.setenv("AGENT_TUI_HOME", str(fixed_workspace / "home"))
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}, "sandbox": {"mode": "off"}},
            cwd=fixed_workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        app = make_app(config, fixed_workspace)

        async def run_before(pilot):
            await part1.ready(pilot)
            await pilot.press(*"hello")

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_tools_in_the_transcript(self, snap_compare, server, tmp_path, fixed_workspace):
        """`/tools` as a chat block at the bottom of the session, every tool listed."""
        # No language server: which are on PATH differs from machine to machine.
        config = make_config(server, tmp_path / "t.db", diagnostics={"enabled": False})
        app = part1.resumed_app(config, fixed_workspace)

        async def run_before(pilot):
            await part1.ready(pilot)
            prompt = pilot.app.view.prompt
            prompt.set_text("/tools")
            await pilot.press("enter")
            await settle(pilot)
            await until(pilot, lambda: "tokens offered" in printed(pilot.app), what="the /tools block")
            await pilot.pause()
            pilot.app.view.chat.scroll_end(animate=False, immediate=True)
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
