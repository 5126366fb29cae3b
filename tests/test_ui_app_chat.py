"""The app through the real agent loop: launch, streaming, tool lines, meter, queue, approvals.

Every test builds the app with the same factory `agent-tui` uses, over a temp database and the
local OpenAI-compatible test server, and drives it with Pilot.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent_tui.frontends.tui.textual_compat import notifications
from agent_tui.frontends.tui.widgets.chat_items import AgentItem, NoticeItem, ToolLine, UserItem
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from agent_tui.frontends.tui.widgets.session_view import SessionView
from agent_tui.frontends.tui.widgets.status import QueuePanel, WorkingLine
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until, until_approval


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


class TestLaunch:
    async def test_prompt_before_services(self, config, workspace):
        """The prompt is on screen and focused while the services are still being built."""
        gate = asyncio.Event()
        from agent_tui.compose.factory import build_services
        from agent_tui.frontends.tui.app import AgentApp

        async def slow_services():
            await gate.wait()
            return await build_services(config, workspace=workspace)

        app = AgentApp(slow_services, workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            assert isinstance(app.focused, PromptInput)
            assert "opening…" in screen_text(app)
            gate.set()
            await settle(pilot)
            assert app.view.session is not None
            assert "openai/fake-model" in screen_text(app)

    async def test_ready_services_can_be_injected(self, server, config, workspace):
        """Services built by the caller drive the app and stay open for their owner after."""
        from agent_tui.compose.factory import build_services
        from agent_tui.frontends.tui.app import AgentApp

        services = await build_services(config, workspace=workspace)
        server.enqueue(Reply(text="hello from the injected services"))
        app = AgentApp(services, workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            session_id = app.view.session.session_id
        stored = await services.store.sessions.transcript(session_id)
        assert [m.content for m in stored] == ["hi", "hello from the injected services"]
        await services.close()

    async def test_meter_shows_budget_once_open(self, config, workspace):
        """After the session opens, the meter shows percent and used/effective window."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            text = app.query_one(ContextMeter).render().plain
            assert "%" in text and "/" in text and "sys" in text and "tools" in text


class TestChat:
    async def test_reply_streams_as_markdown(self, server, config, workspace):
        """The reply is one agent item rendered from Markdown; the meter is recalibrated."""
        server.enqueue(Reply(text="Use `pytest -q` to **run** them."))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "how do I run the tests?")
            await settle(pilot)
            assert [i.entry.text for i in app.query(UserItem)] == ["how do I run the tests?"]
            reply = app.query_one(AgentItem)
            assert reply.entry.text == "Use `pytest -q` to **run** them."
            assert "Use pytest -q to run them." in screen_text(app)
            assert app.view.budget.calibrated
            assert not app.query_one(WorkingLine).display

    async def test_tool_call_is_one_folded_line(self, server, config, workspace):
        """A tool call shows as one line with its status; Enter unfolds what the model saw."""
        (workspace / "cart.py").write_text("total = 1\n")
        server.enqueue(Reply(tool_calls=[("read_file", {"path": "cart.py"})]), Reply(text="It sets total."))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "what is in cart.py?")
            await settle(pilot)
            line = app.query_one(ToolLine)
            assert line.entry.name == "read_file" and line.entry.arguments == "cart.py"
            assert line.entry.state == "ok" and line.size.height == 1
            assert "read_file  cart.py" in screen_text(app)
            line.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert line.size.height > 1 and "total = 1" in screen_text(app)

    async def test_thinking_until_first_delta(self, server, config, workspace):
        """`thinking` shows while the model has not answered; the working line goes with the turn."""
        answer = threading.Event()  # the server answers only once the test has looked
        server.enqueue(Reply(text="late answer", hold=answer, hold_after=0))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            try:
                await until(pilot, lambda: len(server.requests) == 1, what="the request")
                # The direct path sends before the UI has drawn the step: wait for the line.
                await until(pilot, lambda: app.query_one(WorkingLine).display, what="the working line")
                assert "thinking · " in screen_text(app) and "Esc to interrupt" in screen_text(app)
            finally:
                answer.set()
            await settle(pilot)
            assert not app.query_one(WorkingLine).display


class TestQueue:
    async def test_message_sent_during_a_turn_waits(self, server, config, workspace):
        """A send while a turn runs is queued (shown dimmed) and goes out after it."""
        long = " ".join(f"w{i}" for i in range(60))
        rest = threading.Event()  # the first reply stalls mid-stream until the test has looked
        server.enqueue(Reply(text=long, hold=rest), Reply(text="second answer"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "first")
            try:
                await until(pilot, lambda: len(app.query(AgentItem)) == 1, what="streaming")
                await send(pilot, "second")
                await pilot.pause()
                queue = app.query_one(QueuePanel)
                assert queue.display and "queued  second" in screen_text(app)
                assert list(app.view.queue) == ["second"]
                assert len(server.requests) == 1
            finally:
                rest.set()
            await settle(pilot)
            assert not queue.display
            assert [i.entry.text for i in app.query(UserItem)] == ["first", "second"]
            assert [i.entry.text for i in app.query(AgentItem)] == [long, "second answer"]
            last_user = [m for m in server.requests[1]["messages"] if m["role"] == "user"][-1]
            assert last_user["content"] == "second"

    async def test_failed_send_restores_the_text(self, server, config, workspace):
        """When the provider refuses, the error is one line and the text is back in the input."""
        server.enqueue(
            Reply(
                status=400, error_body={"error": {"message": "bad request", "type": "invalid_request_error"}}
            )
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "please fix it")
            await settle(pilot)
            assert app.view.prompt.text == "please fix it"
            errors = [n for n in app.query(NoticeItem) if n.entry.level == "error"]
            assert len(errors) == 1 and "\n" not in errors[0].entry.text
            assert any(n.severity == "error" for n in notifications(app))
            # Sending it again sends it once (it left the live history when it failed).
            server.enqueue(Reply(text="fixed"))
            await pilot.press("enter")
            await until(pilot, lambda: len(app.query(AgentItem)) == 1, what="the retry's answer")
            users = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"]
            assert users == ["please fix it"]


class TestCancel:
    async def test_ctrl_c_cancels_the_turn(self, server, config, workspace):
        """Ctrl+C ends the running turn cleanly; the app stays open."""
        rest = threading.Event()  # the reply stalls mid-stream: Ctrl+C lands mid-turn
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(200)), hold=rest))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "talk a lot")
            try:
                await until(pilot, lambda: len(app.query(AgentItem)) == 1, what="streaming")
                await pilot.press("ctrl+c")
                await settle(pilot)
            finally:
                rest.set()
            view = app.view
            assert not view.busy and app.is_running
            assert "Cancelled." in [n.entry.text for n in app.query(NoticeItem)]
            assert view.session.history[-1].kind == "note"

    async def test_ctrl_c_twice_when_idle_quits(self, config, workspace):
        """Idle, the first Ctrl+C says to press again; the second within 2 s quits."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.is_running
            assert any("again to quit" in n.message for n in notifications(app))
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.return_code is not None  # exit() was called


class TestApproval:
    async def test_bash_asks_and_allow_once_runs(self, server, config, workspace):
        """A command asks in a modal; `a` runs it once."""
        server.enqueue(Reply(tool_calls=[("bash", {"command": "touch made.txt"})]), Reply(text="made it"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "make a file")
            await until_approval(pilot)
            assert "touch made.txt" in screen_text(app)
            await pilot.press("1", "enter")
            await settle(pilot)
            assert (workspace / "made.txt").exists()
            assert app.query_one(ToolLine).entry.state == "ok"

    async def test_deny_with_escape(self, server, config, workspace):
        """Escape denies: nothing runs and the line says so."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "touch nope.txt"})]), Reply(text="ok, not doing it")
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "make a file")
            await until_approval(pilot)
            await pilot.press("escape")
            await settle(pilot)
            assert not (workspace / "nope.txt").exists()
            assert app.query_one(ToolLine).entry.state == "error"

    async def test_allow_for_session_with_prefix(self, server, config, workspace):
        """`s` with the suggested prefix lets the next matching command run without asking."""
        from agent_tui.frontends.tui.screens.approval import ApprovalScreen

        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "git status"})]),
            Reply(tool_calls=[("bash", {"command": "git status --short"})]),
            Reply(text="clean"),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "status?")
            await until_approval(pilot)
            await pilot.press("2", "enter")
            await settle(pilot)
            assert not isinstance(app.screen, ApprovalScreen)
            assert [line.entry.arguments for line in app.query(ToolLine)] == [
                "git status",
                "git status --short",
            ]

    async def test_cancel_takes_the_modal_away(self, server, config, workspace):
        """Ctrl+C while the approval modal is open cancels the turn and closes the modal."""
        from agent_tui.frontends.tui.screens.approval import ApprovalScreen

        server.enqueue(Reply(tool_calls=[("bash", {"command": "touch x"})]))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "go")
            await until_approval(pilot)
            await pilot.press("ctrl+c")
            await settle(pilot)
            assert not isinstance(app.screen, ApprovalScreen) and app.is_running
            assert isinstance(app.query_one(SessionView), SessionView)
            assert not (workspace / "x").exists()
