"""Found by trying the TUI as a new user (issue 32, QA lane): with `--model` given, the top bar
said `no model` for the seconds the session took to open, as if the flag had been ignored."""

from __future__ import annotations

import asyncio

from agent_tui.frontends.tui.app import AgentApp
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import screen_text, settle, until


class TestTopBarWhileOpening:
    async def test_the_bar_says_opening_until_the_session_is_open(self, server, tmp_path, workspace):
        """While the store and session load the bar says `opening…`; then the model's name."""
        from agent_tui.compose.factory import build_services

        config = make_config(server, tmp_path / "ui.db")
        release = asyncio.Event()

        async def services():
            await release.wait()  # the store and agent still loading
            return await build_services(config, workspace=workspace)

        app = AgentApp(services, workspace=workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: "agent-tui ─" in screen_text(app), what="the top bar")
            top = screen_text(app).splitlines()[0]
            assert "no model" not in top and "opening" in top, top
            release.set()
            await settle(pilot)
            await until(
                pilot, lambda: "openai/fake-model" in screen_text(app).splitlines()[0], what="the name"
            )
