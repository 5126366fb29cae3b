"""Found by trying the TUI as a new user (issue 32, QA lane): Enter runs what was typed when the
completion menu lists it. `/model gpt-4o` + Enter became `/model azure/gpt-4o` (the first longer
name) and did not run; `what is in @shot.png` typed whole needed two Enters (the first only
"completed" the path to itself)."""

from __future__ import annotations

import pytest

from agent_tui.frontends.tui.widgets.prompt import model_completions
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until


@pytest.fixture
def app(server, tmp_path, workspace):
    return make_app(make_config(server, tmp_path / "ui.db"), workspace)


async def typed(pilot, text: str):
    """`text` typed into the input, once the menu has caught up with it."""
    await settle(pilot)
    prompt = pilot.app.view.prompt
    prompt.focus()
    await pilot.press(*text)
    await until(pilot, lambda: prompt.menu.shown_for == prompt.text, what="the menu")
    return prompt


class TestEnterOnAWholeModelName:
    async def test_enter_switches_to_the_typed_name_not_the_first_listed(self, app):
        """The menu lists longer names containing `gpt-4o`; Enter switches to `gpt-4o` itself."""
        async with app.run_test(size=(120, 36)) as pilot:
            prompt = await typed(pilot, "/model gpt-4o")
            await pilot.press("enter")
            await until(pilot, lambda: prompt.text == "", what="the command to run")
            await settle(pilot)
            assert app.view.session is not None
            assert app.view.session.model.split("/")[-1] == "gpt-4o"

    def test_a_known_name_typed_whole_is_listed_first(self):
        """The exact name leads the list, so the highlight (what Enter and Tab take) is it."""
        names = model_completions("/model gpt-4o", None)
        assert names[0] == "gpt-4o" and len(names) > 1


class TestEnterAfterAWholePath:
    async def test_one_enter_sends_a_message_whose_mention_is_whole(self, app, server, workspace):
        """The menu still lists the path typed whole; Enter sends the message at once."""
        (workspace / "notes.txt").write_text("remember the milk\n")
        server.enqueue(Reply(text="ok"))
        async with app.run_test(size=(80, 24)) as pilot:
            prompt = await typed(pilot, "read @notes.txt")
            assert prompt.menu.display and prompt.menu.choice == "notes.txt"
            await pilot.press("enter")
            await until(pilot, lambda: server.requests, what="the request")
            await settle(pilot)
            assert "read @notes.txt" in str(server.requests[-1]["messages"][-1]["content"])

    async def test_enter_on_a_partial_path_still_completes_it(self, app, server, workspace):
        """`@no` + Enter completes to `@notes.txt ` and sends nothing yet."""
        (workspace / "notes.txt").write_text("x\n")
        async with app.run_test(size=(80, 24)) as pilot:
            prompt = await typed(pilot, "read @no")
            await pilot.press("enter")
            await pilot.pause()
            assert prompt.text == "read @notes.txt "
            assert server.requests == []
