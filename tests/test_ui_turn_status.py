"""Issue 16, input and seeing what the agent does: Tab never steals focus, one key clears the
input, Esc interrupts, the working line names what runs, approvals are shown and timed honestly,
and a denied call ends the turn (unless configured otherwise)."""

from __future__ import annotations

import os
import threading
import time

import pytest
from textual.widgets import Tabs

from agent_tui.frontends.tui.widgets.chat_items import AgentItem, NoticeItem, ToolLine
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from agent_tui.frontends.tui.widgets.status import WorkingLine
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until, until_approval


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def type_text(pilot, text: str) -> None:
    for key in text:
        await pilot.press("space" if key == " " else key)


class TestInputAndFocus:
    async def test_tab_in_the_prompt_keeps_focus_and_input(self, config, workspace):
        """`my message`, Tab, ` more words`: all of it stays in the prompt (Tab used to move
        focus to the tab strip and the rest of the typing went nowhere)."""
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await type_text(pilot, "my message")
            await pilot.press("tab")
            await type_text(pilot, " more words")
            assert isinstance(app.focused, PromptInput)
            assert app.view.prompt.text == "my message more words"

    async def test_tab_completes_a_workspace_path(self, config, workspace):
        (workspace / "src").mkdir()
        (workspace / "src" / "cart.py").write_text("x = 1\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await type_text(pilot, "look at sr")
            await pilot.press("tab")
            assert app.view.prompt.text == "look at src/cart.py "
            assert isinstance(app.focused, PromptInput)

    async def test_typing_with_focus_on_the_tab_strip_reaches_the_prompt(self, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.query_one(Tabs).focus()
            await pilot.pause()
            await type_text(pilot, "hello")
            assert app.view.prompt.text == "hello"

    async def test_ctrl_l_clears_the_whole_input_and_up_brings_it_back(self, config, workspace):
        """Ctrl+U clears one wrapped row; Ctrl+L clears everything (kept in the history)."""
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            long = "word " * 60 + "\nsecond line"
            prompt.set_text(long)
            await pilot.press("ctrl+l")
            assert prompt.text == ""
            await pilot.press("up")
            assert prompt.text == long


class TestInterruptAndWorkingLine:
    async def test_escape_interrupts_a_streaming_reply(self, server, config, workspace):
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(400)), chunk_delay=0.02))
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "talk")
            working = app.query_one(WorkingLine)
            await until(pilot, lambda: working.state == "streaming", what="streaming")
            assert "streaming" in screen_text(app) and "Esc to interrupt" in screen_text(app)
            await until(pilot, lambda: working.tokens > 0, what="tokens counted")
            await pilot.press("escape")
            await settle(pilot)
            assert any(i.entry.text == "Cancelled." for i in app.query(NoticeItem))
            assert not working.display
            assert "[interrupted" in app.view.session.history[-2].content or any(
                m.kind == "note" for m in app.view.session.history
            )
            assert len(app.query_one(AgentItem).entry.text) < 400 * 4

    async def test_working_line_thinking_awaiting_approval_running_tool(self, server, config, workspace):
        """thinking → awaiting approval (tool line too) → running bash, then gone."""
        fifo = workspace / "gate"
        os.mkfifo(fifo)
        reply_held = threading.Event()  # the server holds the reply until the test saw "thinking"
        server.enqueue(
            Reply(
                text="",
                tool_calls=[("bash", {"command": f"head -c 2 {fifo}"})],
                hold=reply_held,
                hold_after=0,
            ),
            Reply(text="done"),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "wait for the gate")
            working = app.query_one(WorkingLine)
            await until(pilot, lambda: len(server.requests) == 1, what="the request")
            await until(pilot, lambda: working.state == "thinking", what="thinking")
            assert working.display
            reply_held.set()
            await until_approval(pilot)
            line = app.query_one(ToolLine)
            await until(pilot, lambda: working.state == "awaiting approval", what="awaiting approval")
            assert line.entry.state == "awaiting"
            answered = time.monotonic()
            await pilot.press("1", "enter")
            await until(pilot, lambda: working.state == "running bash", what="running bash")
            assert line.entry.state == "running"
            assert line._started >= answered  # the tool's clock starts at the answer
            assert "running bash" in screen_text(app)
            fd = os.open(fifo, os.O_WRONLY)
            os.write(fd, b"ok")
            os.close(fd)
            await settle(pilot)
            assert not working.display

    async def test_working_line_while_compacting(self, server, config, workspace):
        server.enqueue(Reply(text="one " * 200), Reply(text="<summary>s</summary>", delay=0.5))
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "first")
            await settle(pilot)
            working = app.query_one(WorkingLine)
            shown: list[str] = []
            tick = working._tick

            def record() -> None:  # what the line said at each draw (a short compaction is quick)
                tick()
                shown.append(str(working.render()))

            working._tick = record
            await send(pilot, "/compact")
            await settle(pilot)
            assert any(" compacting · " in text for text in shown), shown
            assert all("Esc to interrupt" in text for text in shown)
            assert not working.display


class TestDenial:
    async def test_a_denied_call_ends_the_turn(self, server, config, workspace):
        """Deny: the model is not called again; it waits for the user's direction."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "rm -rf build"}), ("bash", {"command": "ls"})]),
            Reply(text="carried on regardless"),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "clean up")
            await until_approval(pilot)
            await pilot.press("4", "enter")
            await settle(pilot)
            assert len(server.requests) == 1
            line = app.query(ToolLine).first()
            assert line.entry.state == "error" and line.entry.detail == "denied"  # no think time
            history = app.view.session.history
            tools = [m for m in history if m.role == "tool"]
            assert len(tools) == 2 and "not run" in tools[1].content  # every call answered
            assert "carried on" not in screen_text(app)

    async def test_deny_ends_turn_false_keeps_the_old_behaviour(self, server, tmp_path, workspace):
        config = make_config(server, tmp_path / "ui.db", tools={"deny_ends_turn": False})
        server.enqueue(Reply(tool_calls=[("bash", {"command": "rm -rf build"})]), Reply(text="carried on"))
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "clean up")
            await until_approval(pilot)
            await pilot.press("4", "enter")
            await settle(pilot)
            assert len(server.requests) == 2
