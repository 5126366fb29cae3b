"""Background commands and `!command` in the TUI (Pilot over the real loop and the local server):
the running count in the top bar, /tasks listing, killing and showing one, and `!ls` in the
chat and in the next request. An SVG snapshot of /tasks at 80 × 24."""

from __future__ import annotations

import json
import re

import pytest

from agent_tui.base.messages import ToolCall
from agent_tui.frontends.tui.screens.tasks import TaskOutputScreen, TasksScreen
from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.tools.background import Shell
from testkit.fake_openai import Reply
from tests.support import snapshots as part1
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until

sandbox_off = part1.sandbox_off  # autouse: the same picture with or without bubblewrap here
fixed_workspace = part1.fixed_workspace


def two_servers(server) -> None:
    server.enqueue(
        Reply(
            tool_calls=[
                ("bash", {"command": "echo serving web; sleep 300", "background": True}),
                ("bash", {"command": "echo watching; sleep 301", "background": True}),
            ]
        ),
        Reply(text="both are running"),
    )


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db", tools={"allow": ["bash"]})


async def start_two(pilot) -> list[Shell]:
    await settle(pilot)
    await send(pilot, "start the servers")
    await settle(pilot)
    shells = pilot.app.view.session.background
    running = shells.running()
    await until(pilot, lambda: all(s.received for s in running), what="both commands' first output")
    return running


class TestTasks:
    async def test_count_list_kill_and_output(self, server, config, workspace):
        """The top bar counts running commands; /tasks lists them; k kills the selected one;
        Enter shows the other's output."""
        two_servers(server)
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            first, second = await start_two(pilot)
            await until(pilot, lambda: "⧗ 2 running" in screen_text(app), what="the count")
            await send(pilot, "/tasks")
            await until(pilot, lambda: isinstance(app.screen, TasksScreen), what="/tasks")
            text = screen_text(app)
            assert "sh_1" in text and "sh_2" in text and "echo serving web; sleep 300" in text
            assert text.count("running") >= 2
            await pilot.press("k")
            await first.done.wait()
            assert first.state == "killed" and second.running
            await until(pilot, lambda: "⧗ 1 running" in screen_text(app), what="the count after kill")
            await until(pilot, lambda: "killed" in screen_text(app), what="the killed row")
            await pilot.press("down", "enter")
            await until(pilot, lambda: isinstance(app.screen, TaskOutputScreen), what="the output")
            await until(pilot, lambda: "watching" in screen_text(app), what="its output")
            await pilot.press("escape", "escape")
            await app.view.session.background.end_all()

    async def test_bang_ls_shows_in_the_chat_and_reaches_the_next_request(self, server, config, workspace):
        """`!ls` runs at once (no model call), shows a tool line with its output, and the next
        prompt's request carries it."""
        (workspace / "notes.md").write_text("x\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "!ls")
            await settle(pilot)
            assert server.requests == []
            lines = app.query(ToolLine)
            assert len(lines) == 1 and "ls" in screen_text(app) and "notes.md" in lines[0].entry.body
            server.enqueue(Reply(text="one file"))
            await send(pilot, "what is there?")
            await settle(pilot)
        last = server.requests[-1]["messages"][-1]
        content = last["content"] if isinstance(last["content"], str) else json.dumps(last["content"])
        assert "`ls`" in content and "notes.md" in content and "what is there?" in content

    async def test_bang_command_is_a_tool_line_after_resume(self, server, config, workspace):
        """A `!ls` reads back, after resume, as the tool line it was (command, output, ref),
        not as a message the user typed; the conversation sent next still carries it."""
        (workspace / "notes.md").write_text("x\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "!ls")
            await settle(pilot)
            live = app.query_one(ToolLine).entry
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            lines = again.query(ToolLine)
            assert len(lines) == 1, screen_text(again)
            entry = lines[0].entry
            assert (entry.name, entry.arguments, entry.ref) == ("bash", live.arguments, live.ref)
            assert entry.ref is not None and "notes.md" in entry.body
            assert "The user ran this command" not in screen_text(again)  # nor in the tab title
            assert "!ls" in screen_text(again)  # what the user typed, as it was shown live
            from agent_tui.agent.rewind import rewind_points

            assert [p.text for p in await rewind_points(again.view.session)] == ["!ls"]  # what /rewind lists
            server.enqueue(Reply(text="one file"))
            await send(pilot, "and now?")
            await settle(pilot)
        last = server.requests[-1]["messages"][-1]["content"]
        assert "`ls`" in json.dumps(last) and "notes.md" in json.dumps(last)


class TestTasksSnapshot:
    def test_tasks_with_two_running(self, snap_compare, server, tmp_path, fixed_workspace, monkeypatch):
        """/tasks at 80 × 24: two running commands, their elapsed time, output size, command."""
        config = make_config(server, tmp_path / "s.db", tools={"allow": ["bash"]})
        app = make_app(config, fixed_workspace)
        monkeypatch.setattr(Shell, "elapsed", lambda self: 12.0)
        started: list[Shell] = []

        async def run_before(pilot):
            await settle(pilot)
            session = pilot.app.view.session
            for number, command in enumerate(["echo serving web; sleep 300", "echo watching; sleep 301"]):
                # Straight to the runner: the chat behind the dialog then holds no timings.
                call = ToolCall(
                    f"call_{number}", "bash", json.dumps({"command": command, "background": True})
                )
                await session.runner.run(call)
            started.extend(session.background.running())
            await until(pilot, lambda: all(s.received for s in started), what="both commands' output")
            await part1.ready(pilot)
            await send(pilot, "/tasks")
            await until(pilot, lambda: isinstance(pilot.app.screen, TasksScreen), what="/tasks")
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))
        assert len(started) == 2
        assert all(not _alive(shell.pgid) for shell in started)  # ended with the app


def _alive(pgid: int) -> bool:
    from agent_tui.tools.bash import _group_alive

    return _group_alive(pgid)


class TestCtrlB:
    async def test_ctrl_b_sends_the_running_command_to_the_background(self, server, config, workspace):
        """Ctrl+B while a foreground bash runs: the call returns at once with what it printed
        so far and a shell id, the turn goes on, the command keeps running in /tasks, and
        nothing it prints is lost across the handover."""
        command = "echo before; until [ -e go ]; do sleep 0.05; done; echo after; sleep 300"
        server.enqueue(Reply(tool_calls=[("bash", {"command": command})]), Reply(text="it runs on"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "start it")
            shells = app.view.session.background
            await until(pilot, lambda: shells._detach is not None, what="the foreground command")
            await pilot.press("ctrl+b")
            await settle(pilot)  # the turn ended although the command still runs
            assert [s.id for s in shells.running()] == ["sh_1"]
            result = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][-1]["content"]
            assert "moved to the background by the user" in result and "sh_1" in result
            assert "⧗ 1 running" in screen_text(app)
            (workspace / "go").touch()
            shell = shells.shells["sh_1"]
            await until(pilot, lambda: b"after" in shell.unread.head + shell.unread.tail, what="later output")
            store = app.view.session.store
            first = re.search(r"ref (r_\w+)", app.query(ToolLine)[0].entry.detail)
            before = await store.results.get_text(first.group(1)) if first else ""
            after = await store.results.get_text(shell.ref_id)
            assert before + after == "before\nafter\n"
            await shells.end_all()

    async def test_switching_model_keeps_the_sessions_background_commands(self, server, config, workspace):
        """/model reopens the same session under another model: its background commands keep
        running and stay listed (they end only with the session)."""
        two_servers(server)
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            first, second = await start_two(pilot)
            await send(pilot, "/model other-model")
            await settle(pilot)
            assert app.view.session.model.endswith("other-model")
            assert first.running and second.running
            assert app.view.session.background.running() == [first, second]
            await until(pilot, lambda: "⧗ 2 running" in screen_text(app), what="the count")
            await app.view.session.background.end_all()
