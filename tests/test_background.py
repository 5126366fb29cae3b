"""Background commands through the real loop: `bash` with `background: true`, `bash_output`,
`kill_shell`, the status note, the limit, and the end with the session (real SQLite, the local
server, real processes)."""

from __future__ import annotations

import json
import re

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.store.background_log import ENDED_WITH_SESSION
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type


def tool_contents(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def last_user_text(request: dict) -> str:
    """The newest message's text: the per-turn status note rides on it."""
    content = request["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


WAIT_FOR_GO = "until [ -e go ]; do sleep 0.05; done; "


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(
        make_config(server, tmp_path / "agent.db", **{"tools": {"max_background": 2}}), workspace=workspace
    )
    yield svc
    await svc.close()


class TestBackground:
    async def test_output_is_readable_by_ref_while_it_runs_and_kill_ends_it(self, server, services):
        """bash_output shows new lines; read_result on the ref reads them while the command still
        runs; kill_shell ends its process group and the output stays readable."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo one; echo two; sleep 300", "background": True})]),
            Reply(tool_calls=[("bash_output", {"id": "sh_1", "wait": 30})]),
        )
        ref_seen: list[str] = []

        def responder(request: dict) -> Reply:
            last = tool_contents(request)[-1]
            if not ref_seen:
                ref_seen.append(re.search(r"ref (r_\w+)", last).group(1))
                return Reply(tool_calls=[("read_result", {"ref_id": ref_seen[0]})])
            if "kill_shell" not in json.dumps(request["messages"][-2]):
                return Reply(tool_calls=[("kill_shell", {"id": "sh_1"})])
            return Reply(text="stopped")

        server.responder = responder
        session = await services.new_session(yes=True)
        shells = session.background
        # bash_output(wait) returns as soon as output arrives; wait for both lines to be there.
        events = await collect(session.run_turn("start it"))
        started = tool_contents(server.requests[1])[0]
        assert "sh_1" in started and "ref r_" in started
        line = of_type(events, ev.ToolCallFinished)[0]  # the tool line names the output's ref
        assert line.ref is None and f"output ref {shells.shells['sh_1'].ref_id}" in line.summary
        new = tool_contents(server.requests[2])[-1]
        assert "running" in new and "one" in new
        read = tool_contents(server.requests[3])[-1]
        assert re.search(r"1\tone", read)
        killed = tool_contents(server.requests[4])[-1]
        assert "sh_1 killed" in killed
        assert events[-1].text == "stopped"
        shell = shells.shells["sh_1"]
        assert shell.state == "killed" and not shell.running
        text = await services.store.results.get_text(shell.ref_id)
        assert text.startswith("one\ntwo\n")

    async def test_an_ended_command_is_in_the_next_status_note_and_running_ones_always(
        self, server, services, workspace
    ):
        """A command that ends by itself is named once in the next request's status note; a
        running one is listed in every request until it ends."""
        server.enqueue(
            # It ends once the test says so: after the first turn, before the second.
            Reply(tool_calls=[("bash", {"command": WAIT_FOR_GO + "echo quick; exit 3", "background": True})]),
            Reply(tool_calls=[("bash", {"command": "sleep 300", "background": True})]),
            Reply(text="started both"),
        )
        session = await services.new_session(yes=True)
        await collect(session.run_turn("start"))
        assert session.background.shells["sh_1"].running
        (workspace / "go").touch()
        await session.background.shells["sh_1"].done.wait()
        server.enqueue(Reply(text="noted"), Reply(text="again"))
        await collect(session.run_turn("anything new?"))
        note = last_user_text(server.requests[-1])
        assert "echo quick; exit 3` exited with code 3" in note
        assert "running: sh_2 `sleep 300`" in note
        await collect(session.run_turn("and now?"))
        note = last_user_text(server.requests[-1])
        assert "sh_1" not in note and "running: sh_2" in note
        stopped = await session.background.end_all()
        assert [s.id for s in stopped] == ["sh_2"]

    async def test_the_limit_is_a_clear_error(self, server, services):
        """Past [tools] max_background the call fails with how to free a slot."""
        server.enqueue(
            Reply(
                tool_calls=[("bash", {"command": f"sleep {300 + i}", "background": True}) for i in range(3)]
            ),
            Reply(text="ok"),
        )
        session = await services.new_session(yes=True)
        events = await collect(session.run_turn("start three"))
        third = of_type(events, ev.ToolCallFinished)[2]
        assert third.is_error and "max_background" in third.view and "sh_1, sh_2" in third.view
        await session.background.end_all()

    async def test_a_resumed_session_is_told_which_were_lost(self, server, services):
        """Commands still running when a session's process ended are named to the model once
        after resume."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "sleep 300", "background": True})]), Reply(text="ok")
        )
        session = await services.new_session(yes=True)
        await collect(session.run_turn("start"))
        stopped = await session.background.end_all()
        assert stopped[0].state == ENDED_WITH_SESSION
        await services.store.leases.release_all()
        resumed = await services.resume_session(session.session_id, yes=True)
        server.enqueue(Reply(text="I see"), Reply(text="fine"))
        await collect(resumed.run_turn("what happened to the server?"))
        assert "ended when it was last closed: sh_1 `sleep 300`" in last_user_text(server.requests[-1])
        await collect(resumed.run_turn("again"))
        assert "sh_1" not in last_user_text(server.requests[-1])
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "true", "background": True})]), Reply(text="ok")
        )
        await collect(resumed.run_turn("one more"))
        assert "sh_2" in tool_contents(server.requests[-1])[-1]
