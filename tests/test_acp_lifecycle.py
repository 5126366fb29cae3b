"""`agent-tui acp` across a session's life: cancel mid-turn, load a stored session, compact from
the editor, an untrusted folder, bad input on stdin, and the client going away."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import pytest
from acp import RequestError, text_block

from agent_tui.tools.bash import _group_alive as group_alive
from testkit.fake_openai import Reply
from tests.support.acp_client import WAIT, agent_args, agent_env, cli, open_agent


def prompt(conn, session_id: str, text: str):
    return asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block(text)]), WAIT)


async def wait_for_file(path) -> str:
    """The file's text once the command wrote it (bounded by WAIT)."""
    deadline = time.monotonic() + WAIT
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never written"
        await asyncio.sleep(0.05)
    return path.read_text().strip()


LONG_COMMAND = "echo $$ > pgid.txt; sleep 60"


class TestCancel:
    async def test_cancel_mid_turn_ends_the_command_and_the_session_goes_on(
        self, server, workspace, tmp_path
    ):
        """session/cancel while a command runs: the prompt answers `cancelled`, the command's
        process group is gone, and the next prompt in the same session works."""
        db = tmp_path / "c.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": LONG_COMMAND})]))
        async with open_agent(server, db, workspace, "--sandbox", "off") as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_once"]
            turn = asyncio.create_task(prompt(conn, new.session_id, "wait a minute"))
            pgid = int(await wait_for_file(workspace / "pgid.txt"))
            assert group_alive(pgid)
            await conn.cancel(session_id=new.session_id)
            assert (await turn).stop_reason == "cancelled"
            assert not group_alive(pgid)
            server.enqueue(Reply(text="still here"))
            assert (await prompt(conn, new.session_id, "again")).stop_reason == "end_turn"
            assert "still here" in client.text()
            sent = json.dumps(server.requests[-1]["messages"])
            assert "cancelled" in sent  # the interrupted call was answered in the history


class TestLoad:
    async def test_load_replays_a_session_made_by_run_and_continues_it(self, server, workspace, tmp_path):
        """session/list shows a `run` session; session/load replays its messages and tool call as
        updates before the answer, then a prompt continues the same conversation."""
        db = tmp_path / "l.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo from-run"})]), Reply(text="run replied"))
        out = cli(
            [
                "run", "hello from run", "--yes", "--json", "--model", "openai/fake-model",
                "--api-base", server.base_url, "--context-window", "32000", "--db", str(db),
            ],
            workspace,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        session_id = json.loads(out.stdout.splitlines()[-1])["session_id"]
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            await asyncio.wait_for(
                conn.load_session(cwd=str(workspace), session_id=session_id, mcp_servers=[]), WAIT
            )
            assert client.text("user_message_chunk") == "hello from run"
            assert "run replied" in client.text()
            call = client.of("tool_call")[0]
            assert call.kind == "execute" and call.title == "echo from-run"
            result = client.of("tool_call_update")[0]
            assert result.status == "completed" and "from-run" in result.content[0].content.text
            listed = await asyncio.wait_for(conn.list_sessions(cwd=str(workspace)), WAIT)
            assert [info.session_id for info in listed.sessions] == [session_id]
            assert listed.sessions[0].title and "hello from run" in listed.sessions[0].title
            server.enqueue(Reply(text="the editor continues"))
            await prompt(conn, session_id, "and now?")
            sent = json.dumps(server.requests[-1]["messages"])
            assert "hello from run" in sent and "run replied" in sent
            with pytest.raises(RequestError) as failed:
                await asyncio.wait_for(
                    conn.load_session(cwd=str(workspace), session_id="s_nope", mcp_servers=[]), WAIT
                )
            assert failed.value.code == -32602 and "s_nope" in json.dumps(failed.value.data)


class TestCompact:
    async def test_compact_prompt_reports_before_after_and_the_next_usage(self, server, workspace, tmp_path):
        """`/compact keep the counts` from the editor: the compaction shows as a card whose result
        holds tokens before and after, and the usage_update right after it is lower than before."""
        db = tmp_path / "k.db"
        async with open_agent(server, db, workspace, "--sandbox", "off") as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_session"]  # covers every later `seq …` command
            for k in range(3):
                server.enqueue(
                    Reply(tool_calls=[("bash", {"command": f"seq 1 {2000 + k}"})]), Reply(text=f"done {k}")
                )
                await prompt(conn, new.session_id, f"count {k}")
            assert len(client.permissions) == 1
            before = client.of("usage_update")[-1].used
            client.clear()
            server.enqueue(Reply(text="<retain>r_x</retain><summary>counted three times</summary>"))
            done = await prompt(conn, new.session_id, "/compact keep the counts")
            assert done.stop_reason == "end_turn"
            card = client.of("tool_call")[0]
            assert card.title.startswith("Compact context (forced")
            finished = [u for u in client.of("tool_call_update") if u.status == "completed"][-1]
            result = finished.raw_output
            assert result["tokens_after"] < result["tokens_before"]
            assert "Compacted" in finished.content[0].content.text
            order = client.updates
            usage_after = next(
                u for u in order[order.index(finished) :] if u.session_update == "usage_update"
            )
            assert usage_after.used < before


class TestTrust:
    async def test_untrusted_folder_ignores_project_settings_and_says_so(self, server, workspace, tmp_path):
        """A project file in a folder the user never trusted: its allow rule is ignored (the
        command still asks) and the notice arrives as a message."""
        db = tmp_path / "t.db"
        (workspace / ".agent-tui.toml").write_text('[tools]\nallow = ["bash"]\n')
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo hi"})]), Reply(text="ok"))
        async with open_agent(server, db, workspace, "--sandbox", "off") as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            await client.wait_for(lambda: "not trusted" in client.text())
            assert "[tools] allow" in client.text()
            client.answers = ["deny"]
            await prompt(conn, new.session_id, "say hi")
            assert len(client.permissions) == 1


class TestProtocol:
    async def test_bad_input_gets_json_rpc_errors_and_the_process_stays_up(self, server, workspace, tmp_path):
        """Garbage, a non-object, a bad id, an unknown method, a prompt for an unknown session and
        wrong params: each gets its JSON-RPC error, stdout holds nothing but protocol, and a
        valid request still works; closing stdin then ends the process."""
        db = tmp_path / "g.db"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *agent_args(server, db),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=workspace,
            env=agent_env(),
        )
        lines = [
            b"this is not json\n",
            b"\xff\xfe{broken utf-8\n",
            b"[1, 2]\n",
            b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize"}\n',
            b'{"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {}}\n',
            b'{"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": '
            b'{"sessionId": "s_nope", "prompt": [{"type": "text", "text": "hi"}]}}\n',
            b'{"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": {"cwd": 5}}\n',
            b'{"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": 1}}\n',
        ]
        assert proc.stdin is not None and proc.stdout is not None
        for line in lines:
            proc.stdin.write(line)
        await proc.stdin.drain()
        replies = [json.loads(await asyncio.wait_for(proc.stdout.readline(), WAIT)) for _ in lines]
        by_id = {r["id"]: r for r in replies if r["id"] is not None}
        anonymous = [r["error"]["code"] for r in replies if r["id"] is None]
        assert sorted(anonymous) == [-32700, -32700, -32600, -32600]
        assert by_id[1]["error"]["code"] == -32601
        assert by_id[2]["error"]["code"] == -32602 and "s_nope" in json.dumps(by_id[2]["error"])
        assert by_id[3]["error"]["code"] == -32602
        assert by_id[4]["result"]["protocolVersion"] == 1
        assert proc.returncode is None
        proc.stdin.close()
        # It exits by itself (WAIT only guards against a hang; how fast is benchmarks' business).
        assert await asyncio.wait_for(proc.wait(), WAIT) == 0
        assert await proc.stdout.read() == b""

    async def test_stdin_closed_mid_command_exits_and_leaves_no_process(self, server, workspace, tmp_path):
        """The editor goes away while a command runs: the agent exits by itself and the command's
        process group is gone."""
        db = tmp_path / "x.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": LONG_COMMAND})]))
        async with open_agent(server, db, workspace, "--sandbox", "off") as (conn, proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_once"]
            turn = asyncio.create_task(conn.prompt(session_id=new.session_id, prompt=[text_block("wait")]))
            pgid = int(await wait_for_file(workspace / "pgid.txt"))
            proc.stdin.close()
            await asyncio.wait_for(proc.wait(), WAIT)  # a hang guard, not a speed test
            turn.cancel()
            await asyncio.gather(turn, return_exceptions=True)
        assert proc.returncode == 0
        assert not group_alive(pgid)

    def test_only_the_protocol_reaches_stdout(self, tmp_path):
        """After claim_stdio, a stray print and a child process writing to "stdout" land on
        stderr; only what the protocol writes reaches the real stdout, and a child cannot read
        the protocol's stdin."""
        import subprocess

        script = (
            "import os, subprocess, sys\n"
            "from agent_tui.frontends.acp.stdio import claim_stdio\n"
            "fds = claim_stdio()\n"
            "print('stray print')\n"
            "subprocess.run(['sh', '-c', 'echo from a child; cat'])\n"
            "os.write(fds.write, os.read(fds.read, 100))\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", script],
            input=b"protocol line\n",
            capture_output=True,
            env=agent_env(),
            timeout=60,
        )
        assert out.stdout == b"protocol line\n"
        assert b"stray print" in out.stderr and b"from a child" in out.stderr
