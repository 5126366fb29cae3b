"""`bash` through the editor's terminal: when the client offers `terminal`, the command runs in a
terminal the client creates (`terminal/create`, `wait_for_exit`, `output`, `kill`, `release`),
the tool call embeds it, and approval, sandbox, refs and cancellation keep their meaning. The
client here is the SDK's client side running real subprocesses, as an editor does."""

from __future__ import annotations

import asyncio
import json
import shutil

from acp import schema as s
from acp import text_block

from agent_tui.tools.bash import _group_alive as group_alive
from testkit.fake_openai import Reply
from tests.support.acp_client import WAIT, open_session

TERMINAL = s.ClientCapabilities(terminal=True)


def prompt(conn, session_id: str, text: str):
    return asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block(text)]), WAIT)


def tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def terminal_contents(client) -> list[tuple[str, str, str]]:
    """(tool call id, status, terminal id) of every update that embeds a terminal."""
    return [
        (u.tool_call_id, u.status, c.terminal_id)
        for u in client.of("tool_call_update")
        for c in (u.content or [])
        if c.type == "terminal"
    ]


class TestEditorTerminal:
    async def test_bash_runs_in_the_clients_terminal_embedded_in_the_tool_call(
        self, server, workspace, tmp_path
    ):
        """Allowed, the command is started by the client (one terminal/create with bash -c and
        the workspace as cwd), the call's card embeds that terminal while it runs and when it
        ends, the model gets the output and exit status as from our own bash, and the terminal
        is released."""
        db = tmp_path / "t.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo out; echo err >&2; echo $PAGER; exit 3"})]),
            Reply(text="it failed with 3"),
        )
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            client.answers = ["allow_once"]
            await prompt(conn, session_id, "run it")
            terminals = client.terminals
            assert len(terminals.requests) == 1
            made = terminals.requests[0]
            assert made["command"] == "bash" and made["args"][-1].startswith("echo out")
            assert made["cwd"] == str(workspace.resolve())
            call_id = client.of("tool_call")[0].tool_call_id
            embedded = terminal_contents(client)
            assert {(c, t) for c, _, t in embedded} == {(call_id, made["id"])}
            assert {st for _, st, _ in embedded} == {"in_progress", "completed"}  # exit 3 is an answer
            assert ("release", made["id"]) in terminals.calls
            assert terminals.live == {}
        result = tool_results(server.requests[1])[-1]
        assert "out" in result and "err" in result and "cat" in result  # our PAGER override
        assert "exit code 3" in result

    async def test_large_output_keeps_our_ref_and_view(self, server, workspace, tmp_path):
        """A large output from the client's terminal is stored whole in our blob store: the model
        sees the head, the tail and the ref, and the editor's card carries the ref."""
        db = tmp_path / "l.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 6000"})]), Reply(text="counted"))
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            client.answers = ["allow_once"]
            await prompt(conn, session_id, "count")
            assert len(client.terminals.requests) == 1
            done = [u for u in client.of("tool_call_update") if u.status == "completed"][-1]
            ref = done.field_meta["agentTui"]["ref"]
            assert any(c.type == "terminal" for c in done.content)
        view = tool_results(server.requests[1])[-1]
        assert view.startswith("1\n") and "6000" in view and ref in view
        assert len(view) < len("\n".join(str(i) for i in range(1, 6001)))

    async def test_a_denied_command_never_reaches_the_terminal(self, server, workspace, tmp_path):
        """Approval stays ours: a denied command creates no terminal on the client."""
        db = tmp_path / "d.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "touch nope.txt"})]), Reply(text="ok"))
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            client.answers = ["deny"]
            await prompt(conn, session_id, "touch it")
            assert len(client.permissions) == 1
            assert client.terminals.requests == []
        assert not (workspace / "nope.txt").exists()

    async def test_cancel_kills_the_clients_command(self, server, workspace, tmp_path):
        """session/cancel while the client runs the command: the agent kills and releases the
        terminal, the command's process group is gone, the prompt answers cancelled."""
        db = tmp_path / "c.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "sleep 60"})]))
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            client.answers = ["allow_once"]
            turn = asyncio.create_task(prompt(conn, session_id, "wait"))
            await client.wait_for(lambda: bool(terminal_contents(client)))
            pid = client.terminals.requests[0]["pid"]
            assert group_alive(pid)
            await conn.cancel(session_id=session_id)
            assert (await turn).stop_reason == "cancelled"
            tid = client.terminals.requests[0]["id"]
            assert ("kill", tid) in client.terminals.calls and ("release", tid) in client.terminals.calls
            await client.terminals.reaped(tid)  # a killed child is a zombie until reaped
            assert not group_alive(pid)

    async def test_timeout_kills_through_the_terminal(self, server, workspace, tmp_path):
        """Our timeout holds: past it the agent kills the client's command and says so."""
        db = tmp_path / "o.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo started; sleep 60", "timeout": 1})]),
            Reply(text="too slow"),
        )
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            client.answers = ["allow_once"]
            await prompt(conn, session_id, "wait")
            tid = client.terminals.requests[0]["id"]
            assert ("kill", tid) in client.terminals.calls
        result = tool_results(server.requests[1])[-1]
        assert "started" in result and "timed out after 1 s" in result

    async def test_background_commands_stay_ours(self, server, workspace, tmp_path):
        """`background: true` runs in our background registry (a shell id, readable by
        bash_output), not in an editor terminal."""
        db = tmp_path / "b.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo bg-done", "background": True})]),
            Reply(text="started"),
        )
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            client.answers = ["allow_once"]
            await prompt(conn, session_id, "start it")
            assert client.terminals.requests == []
        result = tool_results(server.requests[1])[-1]
        assert "bash_output" in result or "shell" in result.lower()

    async def test_the_sandbox_wraps_the_clients_command(self, bwrap, server, workspace, tmp_path):
        """With the sandbox on, the client is asked to run the sandbox's command line (bwrap around
        bash), so a write outside the workspace is refused and the model is told the sandbox
        blocked it; an allowed unsandboxed rerun runs bare bash and asks every time."""
        db = tmp_path / "s.db"
        outside = tmp_path / "outside.txt"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": f"echo x > {outside}"})]),
            Reply(tool_calls=[("bash", {"command": f"echo x > {outside}", "unsandboxed": True})]),
            Reply(text="done"),
        )
        async with open_session(server, db, workspace, capabilities=TERMINAL) as (conn, client, session_id):
            await conn.set_session_mode(session_id=session_id, mode_id="auto")
            client.answers = ["allow_once"]
            await prompt(conn, session_id, "write outside")
            first, second = client.terminals.requests
            assert shutil.which("bwrap") is not None
            assert any("bwrap" in part for part in [first["command"], *first["args"]])
            assert second["command"] == "bash"
            assert [o.option_id for o in client.permissions[0][1]] == ["allow_once", "deny"]
        blocked = tool_results(server.requests[1])[-1]
        assert "blocked" in blocked and "unsandboxed: true" in blocked
        assert outside.read_text() == "x\n"
        assert json.dumps(server.requests[2]["messages"]).count("outside.txt") >= 2

    async def test_a_custom_commands_inline_line_runs_ours(self, server, workspace, tmp_path):
        """A custom command's inline `!` line is not a call the editor has a card for: it runs in
        our bash (no terminal is created) and its output lands in the expanded prompt."""
        from agent_tui.runtime import paths

        folder = paths.config_dir() / "commands"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "where.md").write_text(
            # Brace expansion shows a shell ran it; `$((…))` would not be covered by Bash(echo:*),
            # which (like an allow rule) never covers a substitution.
            "---\nallowed-tools: Bash(echo:*)\n---\nWe are here:\n!`echo inline-{41..42}`\n"
        )
        server.enqueue(Reply(text="noted"))
        db = tmp_path / "i.db"
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            await prompt(conn, session_id, "/where")
            assert client.terminals.requests == []
        assert "inline-42" in json.dumps(server.requests[0]["messages"])

    async def test_withheld_variables_are_unset_for_the_editors_command(
        self, monkeypatch, server, workspace, tmp_path
    ):
        """A secret-looking variable that our own bash would not get is unset (`env -u`) in the
        command the editor runs, though the editor's environment has it; the model is told."""
        monkeypatch.setenv("MY_SERVICE_TOKEN", "hunter2")
        db = tmp_path / "v.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": 'echo "[$MY_SERVICE_TOKEN]"'})]), Reply(text="ok")
        )
        async with open_session(server, db, workspace, "--sandbox", "off", capabilities=TERMINAL) as (
            conn,
            client,
            session_id,
        ):
            client.answers = ["allow_once"]
            await prompt(conn, session_id, "show it")
            made = client.terminals.requests[0]
            assert "MY_SERVICE_TOKEN" in made["args"] and made["command"].endswith("env")
        result = tool_results(server.requests[1])[-1]
        assert "[]" in result and "hunter2" not in result and "MY_SERVICE_TOKEN" in result
