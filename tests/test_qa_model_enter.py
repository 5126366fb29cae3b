"""Found by trying the TUI as a new user (issue 32, QA lane): `/model NAME` + Enter runs the name
typed, also when longer names that contain it (`azure/gpt-4o`) are listed first."""

from __future__ import annotations

from agent_tui.ui.widgets.prompt import model_completions
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until


class TestEnterOnAWholeModelName:
    async def test_enter_switches_to_the_typed_name_not_the_first_listed(self, server, tmp_path, workspace):
        """`/model gpt-4o` + Enter became `/model azure/gpt-4o` in the input and did not run:
        the menu's first line was a longer name and Enter completed to it."""
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"/model gpt-4o")
            await until(pilot, lambda: prompt.menu.shown_for == prompt.text, what="the narrowed list")
            await pilot.press("enter")
            await until(pilot, lambda: prompt.text == "", what="the command to run")
            await settle(pilot)
            assert app.view.session is not None
            assert app.view.session.model.split("/")[-1] == "gpt-4o"

    def test_a_known_name_typed_whole_is_listed_first(self):
        """The exact name leads the list, so the highlight (what Enter and Tab take) is it."""
        names = model_completions("/model gpt-4o", None)
        assert names[0] == "gpt-4o" and len(names) > 1
