"""In the TUI nothing a model or a tool wrote reaches the terminal with its control characters
live: replies, tool lines, unfolded outputs, denial notices and toasts show them as pictures."""

from __future__ import annotations

import pytest

from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, notices, screen_text, send, settle, until_approval

HOSTILE = "\x1b[2K\x1b]52;c;ZXZpbA==\x07\u202e"


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def test_reply_and_tool_output_escapes_are_shown(server, config, workspace):
    """wall: terminal output — a reply's ESC/OSC 52/BEL and a file's ESC show as ␛ ␇ in the chat."""
    (workspace / "evil.txt").write_text(f"line {HOSTILE} end\n")
    server.enqueue(
        Reply(tool_calls=[("read_file", {"path": "evil.txt"})]), Reply(text=f"done {HOSTILE} here")
    )
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await send(pilot, "read it")
        await settle(pilot)
        line = app.query_one(ToolLine)
        line.focus()
        await pilot.press("enter")
        await pilot.pause()
        text = screen_text(app)
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "done ␛[2K␛]52;c;ZXZpbA==␇⟨U+202E⟩ here" in text
        assert "line ␛[2K" in text


async def test_denied_command_notice_shows_escapes(server, config, workspace):
    """wall: terminal output — the tool line and denial notice of a command with ESC show ␛."""
    server.enqueue(
        Reply(tool_calls=[("bash", {"command": f"touch PWNED; {HOSTILE} ls -la"})]), Reply(text="ok")
    )
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await send(pilot, "list")
        await until_approval(pilot)
        await pilot.press("escape")
        await settle(pilot)
        text = screen_text(app) + notices(app)
        assert "\x1b" not in text and "\x07" not in text
        assert "touch PWNED; ␛[2K" in text


class TestNewScreensShowControls:
    """wall: terminal output — the screens the later lanes added follow the same rule."""

    def test_a_child_line_shows_escapes_in_the_models_description(self):
        """A sub-agent's description comes from the model: its ESC and newline are made visible."""
        from agent_tui.frontends.tui.widgets.child_lines import ChildState

        child = ChildState("s_1", "look\x1b[2J\x1b[1Ginto\nit", started=0.0)
        running = child.line().plain
        child.ended, child.state, child.folded = 1.0, "completed", "completed · 1.0 s"
        for plain in (running, child.line().plain):
            assert "\x1b" not in plain and "\n" not in plain
            assert "␛[2J" in plain and "⏎" in plain
