"""Found by trying the TUI as a new user (issue 32, QA lane): terminals send the line breaks of a
paste as carriage returns (tmux, xterm); a long paste reached the model with them, one line."""

from __future__ import annotations

from textual import events

from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until


class TestPastedCarriageReturns:
    async def test_a_long_paste_with_cr_line_breaks_goes_out_as_lines(self, server, tmp_path, workspace):
        """300 lines pasted with `\\r` breaks showed `[pasted 3792 characters #1]` and the model
        got `log line 1\\rlog line 2…`; the chip counts lines and the model gets `\\n`."""
        server.enqueue(Reply(text="read it"))
        lines = [f"log line {i}" for i in range(1, 301)]
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            app.post_message(events.Paste("\r".join(lines) + "\r"))
            await until(pilot, lambda: "[pasted" in prompt.text, what="the chip")
            assert prompt.text == "[pasted 300 lines #1]"
            await pilot.press("enter")
            await settle(pilot)
            sent = server.requests[-1]["messages"][-1]["content"]
            assert "\r" not in sent
            assert sent.splitlines() == lines

    async def test_crlf_breaks_are_one_line_break_each(self, server, tmp_path, workspace):
        """A Windows-style paste (`\\r\\n`) is 300 lines, not 600."""
        server.enqueue(Reply(text="read it"))
        lines = [f"row {i}" for i in range(1, 301)]
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.view.prompt.focus()
            app.post_message(events.Paste("\r\n".join(lines)))
            await until(pilot, lambda: "[pasted" in app.view.prompt.text, what="the chip")
            assert app.view.prompt.text == "[pasted 300 lines #1]"
            await pilot.press("enter")
            await settle(pilot)
            assert server.requests[-1]["messages"][-1]["content"] == "\n".join(lines)

    async def test_a_short_paste_with_cr_breaks_is_lines_in_the_input(self, server, tmp_path, workspace):
        """Three lines pasted with `\\r` breaks are three lines in the input and in the request."""
        server.enqueue(Reply(text="ok"))
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.view.prompt.focus()
            app.post_message(events.Paste("a\rb\rc"))
            await until(pilot, lambda: app.view.prompt.text, what="the paste")
            await pilot.press("enter")
            await settle(pilot)
            assert server.requests[-1]["messages"][-1]["content"] == "a\nb\nc"
