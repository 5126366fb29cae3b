"""Found by trying the TUI as a new user (issue 32, QA lane): keys typed while a tool line has
focus all reach the input, also those still on their way up from the tool line when the focus
has already moved to the input."""

from __future__ import annotations

import pytest
from textual import events

from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, send, settle, until


@pytest.fixture
def tool_app(server, tmp_path, workspace):
    server.enqueue(Reply(tool_calls=[("read_file", {"path": "a.txt"})]), Reply(text="done"))
    (workspace / "a.txt").write_text("x\n")
    return make_app(make_config(server, tmp_path / "ui.db"), workspace)


class TestKeysQueuedOnAToolLine:
    async def test_keys_still_bubbling_when_the_focus_moved_are_not_dropped(self, tool_app):
        """`hello long 900` typed onto a tool line arrived as `h`: the first key moved the focus
        to the input, and the keys already queued on the tool line were then ignored."""
        app = tool_app
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "read a.txt")
            await settle(pilot)
            line = app.query_one(ToolLine)
            line.focus()
            await pilot.pause()
            # The app dispatched every key to the tool line while it had focus; the first one
            # moved the focus to the input before the others had bubbled up from the tool line.
            typed = "hello long 900"
            line._forward_event(events.Key("h", "h"))  # what the screen does with a key
            await until(pilot, lambda: isinstance(app.focused, PromptInput), what="the input's focus")
            for char in typed[1:]:
                key = "space" if char == " " else char
                line._forward_event(events.Key(key, char))
            await until(pilot, lambda: app.view.prompt.text == typed, what=f"{typed!r} in the input")
            assert isinstance(app.focused, PromptInput)


class TestKeysQueuedOnTheTabStrip:
    async def test_keys_typed_on_the_tab_strip_all_reach_the_input(self, tmp_path, server, workspace):
        """The App forwards typing from the tab strip to the input; keys still bubbling up from
        the strip once the first one moved the focus were dropped the same way."""
        from textual.widgets import Tabs

        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            strip = app.query_one(Tabs)
            strip.focus()
            await until(pilot, lambda: app.focused is strip, what="the tab strip's focus")
            strip._forward_event(events.Key("h", "h"))  # what the screen does with a key
            await until(pilot, lambda: isinstance(app.focused, PromptInput), what="the input's focus")
            strip._forward_event(events.Key("i", "i"))
            await until(pilot, lambda: app.view.prompt.text == "hi", what="'hi' in the input")


class TestTypedWhileStarting:
    async def test_a_message_typed_before_the_first_frame_is_sent(self, tmp_path, server, workspace):
        """`agent-tui`, then typing at once: the keys reach the app before the input has focus
        (the tab strip has it) and Enter arrives as a line feed (the terminal was still in line
        mode); the text stayed in the input, unsent, and the Enter was lost."""
        from textual.widgets import Tabs

        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            strip = app.query_one(Tabs)
            strip.focus()  # where the focus is while the app starts
            await until(pilot, lambda: app.focused is strip, what="the tab strip's focus")
            for key, char in [*((c, c) for c in "hello"), ("ctrl+j", "\n")]:
                event = events.Key(key, char)
                event.time = 0.0  # read from the terminal when the app started, before any frame
                app.post_message(event)
            await until(pilot, lambda: server.requests, what="the request")
            await settle(pilot)
            last = server.requests[0]["messages"][-1]
            assert last["role"] == "user" and "hello" in str(last["content"])
            assert app.view.prompt.text == ""

    async def test_ctrl_j_typed_in_the_running_app_is_still_a_new_line(self, tmp_path, server, workspace):
        """Only a line feed read before the first frame is Enter; later Ctrl+J adds a line."""
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press(*"ab", "ctrl+j", "c")
            assert app.view.prompt.text == "ab\nc"
            assert server.requests == []
