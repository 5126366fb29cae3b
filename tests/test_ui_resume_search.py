"""Finding a session to resume as a Claude Code user does: `agent-tui -r` with no id opens the
picker (it used to fail: `-r` requires an argument), and the picker searches as you type."""

from __future__ import annotations

import pytest

from agent_tui.frontends.cli.main import bare_resume
from agent_tui.frontends.tui.screens.resume import ResumeScreen
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until
from tests.support.ui_session_fixtures import stored_chat


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


class TestResumePicker:
    async def test_bare_r_opens_the_picker_and_search_narrows_it(self, config, workspace):
        cart = await stored_chat(config, workspace, 2, title="fix the cart total")
        await stored_chat(config, workspace, 2, title="refactor the login page")
        app = make_app(config, workspace, session_id="")  # what `-r` alone becomes
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumeScreen), what="the picker")
            screen = app.screen
            assert {r.title for r in screen.rows} >= {"fix the cart total", "refactor the login page"}
            await pilot.press(*"cart")
            await pilot.pause()
            assert [r.title for r in screen.matching("cart")] == ["fix the cart total"]
            await pilot.press("enter")
            await settle(pilot)
            assert app.view.session.session_id == cart

    def test_bare_r_is_given_an_empty_id_and_an_id_is_kept(self):
        assert bare_resume(["-r"]) == ["--resume="]
        assert bare_resume(["--resume", "--model", "x"]) == ["--resume=", "--model", "x"]
        assert bare_resume(["-r", "s_123"]) == ["-r", "s_123"]
        assert bare_resume(["run", "-r"]) == ["run", "-r"]  # run still needs its id
