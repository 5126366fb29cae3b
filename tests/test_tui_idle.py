"""An idle TUI schedules no redraws: the prompt's cursor is steady, as Claude Code's (issue 31: a
blinking cursor redrew the screen twice a second, ~17 ms of CPU a second, for as long as the
prompt sat idle)."""

from __future__ import annotations

from agent_tui.frontends.tui.widgets.prompt import PromptInput
from tests.support.ui_helpers import make_app, settle


class TestIdle:
    async def test_the_focused_prompt_keeps_a_steady_cursor(self, loop_config, loop_workspace):
        """The opened TUI's focused prompt does not blink its cursor."""
        app = make_app(loop_config, loop_workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.query_one(PromptInput)
            assert prompt.has_focus
            assert prompt.cursor_blink is False
