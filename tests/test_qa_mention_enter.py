"""Found by trying the TUI as a new user (issue 32, QA lane): `what is in @shot.png` typed whole
needed Enter twice — the first only "completed" the path to itself (adding a space)."""

from __future__ import annotations

from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until


class TestEnterAfterAWholePath:
    async def test_one_enter_sends_a_message_whose_mention_is_whole(self, server, tmp_path, workspace):
        """The menu still lists the path typed whole; Enter sends the message at once."""
        (workspace / "notes.txt").write_text("remember the milk\n")
        server.enqueue(Reply(text="ok"))
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"read @notes.txt")
            await until(pilot, lambda: prompt.menu.shown_for == prompt.text, what="the menu")
            assert prompt.menu.display and prompt.menu.choice == "notes.txt"
            await pilot.press("enter")
            await until(pilot, lambda: server.requests, what="the request")
            await settle(pilot)
            assert "read @notes.txt" in str(server.requests[-1]["messages"][-1]["content"])

    async def test_enter_on_a_partial_path_still_completes_it(self, server, tmp_path, workspace):
        """`@no` + Enter completes to `@notes.txt ` and sends nothing yet."""
        (workspace / "notes.txt").write_text("x\n")
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"read @no")
            await until(pilot, lambda: prompt.menu.shown_for == prompt.text, what="the menu")
            await pilot.press("enter")
            await pilot.pause()
            assert prompt.text == "read @notes.txt "
            assert server.requests == []
