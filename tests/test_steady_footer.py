"""The footer keeps its keys while focus moves between widgets that show the same ones, and still
follows a change of keys (issue 31: Textual's Footer rebuilt them on every focus change)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Input
from textual.widgets._footer import FooterKey

from agent_tui.frontends.tui.textual_compat import SteadyFooter, screen_text


class Searchable(Input):
    BINDINGS = [Binding("ctrl+f", "noop", "find here")]

    def action_noop(self) -> None:
        pass


class Keys(App[None]):
    BINDINGS = [Binding("ctrl+t", "noop", "new tab"), Binding("f1", "noop", "help")]

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield Searchable(id="find")
        yield SteadyFooter()

    def action_noop(self) -> None:
        pass


def _keys(app: App[None]) -> list[FooterKey]:
    return list(app.query(FooterKey))


class TestSteadyFooter:
    async def test_same_keys_keep_their_widgets(self):
        """Focus moving between two buttons (same keys) leaves the footer's key widgets as they were."""
        app = Keys()
        async with app.run_test(size=(80, 10)) as pilot:
            app.query_one("#one").focus()
            await pilot.pause()
            before = _keys(app)
            assert before and "new tab" in screen_text(app)
            app.query_one("#two").focus()
            await pilot.pause()
            await pilot.pause()
            assert _keys(app) == before and all(a is b for a, b in zip(_keys(app), before, strict=True))

    async def test_new_keys_are_shown(self):
        """Focus on a widget with a key of its own: the footer shows it, and drops it again after."""
        app = Keys()
        async with app.run_test(size=(80, 10)) as pilot:
            app.query_one("#one").focus()
            await pilot.pause()
            assert "find here" not in screen_text(app)
            app.query_one("#find").focus()
            await pilot.pause()
            await pilot.pause()
            assert "find here" in screen_text(app)
            app.query_one("#two").focus()
            await pilot.pause()
            await pilot.pause()
            assert "find here" not in screen_text(app)
