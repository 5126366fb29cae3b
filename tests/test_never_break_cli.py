"""Sessions that never break, as a user meets it: real `agent-tui run` subprocesses killed with
SIGKILL mid-tool, a real file whose name is not UTF-8, two processes on one session."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from testkit.fake_openai import FakeOpenAI, Reply
from testkit.openai_shapes import pairing_error
from tests.support.cli import flags, run_cli

ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def start_cli(args: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )


def read_until(proc: subprocess.Popen[bytes], event_type: str) -> dict:
    """The first `--json` event of this type (blocks on the child's output, no timing)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        event = json.loads(line)
        if event["type"] == event_type:
            return event
    raise AssertionError(f"the run ended before a {event_type} event: {proc.stderr.read()!r}")


def kill_group_of(pid_file: Path) -> None:
    """The tool's shell outlives a SIGKILLed agent (its own process group): end it."""
    try:
        os.killpg(int(pid_file.read_text()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


class TestKilledMidTool:
    def test_run_continue_after_sigkill_while_a_tool_runs(self, server, workspace, tmp_path):
        """SIGKILL while `bash` runs leaves a call with no result; `run --continue` used to get
        the provider's 400 for ever. Now the call is answered `[interrupted: …]` and the turn
        succeeds, with one user message per run."""
        db = tmp_path / "k.db"
        pid_file = workspace / "tool.pid"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo $$ > tool.pid; exec sleep 60"})]))
        proc = start_cli(["run", "start the job", "--yes", "--json", *flags(server, db)], workspace)
        try:
            started = read_until(proc, "tool_call_started")
            assert started["call"]["name"] == "bash"
            proc.kill()
            proc.wait(timeout=30)
        finally:
            proc.kill()
            proc.stdout.close()
            proc.stderr.close()
        kill_group_of(pid_file)
        assert proc.returncode == -signal.SIGKILL

        server.enqueue(Reply(text="the job was interrupted; starting it again"))
        out = run_cli(["run", "what happened?", "--continue", *flags(server, db)], workspace)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "the job was interrupted; starting it again"
        sent = server.requests[-1]["messages"]
        assert pairing_error(sent) is None
        results = [m for m in sent if m["role"] == "tool"]
        assert [r["content"] for r in results] == [
            "[interrupted: agent-tui stopped before this tool finished]"
        ]
        assert [m["content"] for m in sent if m["role"] == "user"][0] == "start the job"
        assert "had no result" in out.stderr

        server.enqueue(Reply(text="again fine"))
        again = run_cli(["run", "and again", "--continue", *flags(server, db)], workspace)
        assert again.returncode == 0 and again.stdout.strip() == "again fine"


class TestNonUtf8FileName:
    def test_list_dir_of_a_non_utf8_name_persists_sends_and_prints_valid_json(
        self, server, workspace, tmp_path
    ):
        """`bad\\xffname.txt`: the listing used to be unpersistable (surrogates), the provider
        call failed three times and `--json` printed a raw 0xff byte."""
        name = os.fsdecode(b"bad\xffname.txt")
        try:
            (workspace / name).write_text("odd\n")
        except (UnicodeEncodeError, OSError):
            pytest.skip("this file system does not take non-UTF-8 names")
        server.enqueue(Reply(tool_calls=[("list_dir", {"path": "."})]), Reply(text="one odd file"))
        db = tmp_path / "u.db"
        out = subprocess.run(
            [sys.executable, "-m", "agent_tui", "run", "list", "--json", *flags(server, db)],
            cwd=workspace,
            capture_output=True,
            env=ENV,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        lines = out.stdout.decode("utf-8").splitlines()  # strict: raises on a raw 0xff
        events = [json.loads(line) for line in lines]
        assert events[-1]["type"] == "result" and events[-1]["ok"]
        finished = next(e for e in events if e["type"] == "tool_call_finished")
        assert "bad\\xffname.txt" in finished["view"]
        assert "could not persist" not in out.stderr.decode("utf-8", "replace")
        assert len(server.requests) == 2  # one call each, no retries
        tool = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")
        assert "bad\\xffname.txt" in tool["content"]

        server.enqueue(Reply(text="still here"))
        again = run_cli(["run", "again", "--continue", *flags(server, db)], workspace)
        assert again.returncode == 0 and again.stdout.strip() == "still here"
        resent = next(m for m in server.requests[-1]["messages"] if m["role"] == "tool")
        assert resent["content"] == tool["content"]  # it was stored


HOLDER = """
import asyncio, sys
from agent_tui.store import open_store

async def main():
    store = await open_store(sys.argv[1])
    await store.leases.acquire(sys.argv[2])
    await store.close()
    print("held", flush=True)
    sys.stdin.readline()

asyncio.run(main())
"""


class TestTwoProcesses:
    def test_a_second_process_gets_one_line_and_a_dead_holder_is_taken_over(
        self, server, workspace, tmp_path
    ):
        """A live process holding the session: `run --continue` says so in one line and
        appends nothing. Once the holder is SIGKILLed, its stale lease is taken over."""
        db = tmp_path / "two.db"
        server.enqueue(Reply(text="first"))
        first = run_cli(["run", "hello", "--json", *flags(server, db)], workspace)
        session_id = json.loads(first.stdout.splitlines()[-1])["session_id"]
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(db), session_id],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        try:
            assert holder.stdout.readline().strip() == "held"
            busy = run_cli(["run", "from elsewhere", "--continue", *flags(server, db)], workspace)
            assert busy.returncode == 1
            assert f"open in another agent-tui (pid {holder.pid})" in busy.stderr
            assert len(busy.stderr.strip().splitlines()) == 1 and "Traceback" not in busy.stderr
            assert len(server.requests) == 1
            holder.kill()
            holder.wait(timeout=30)
        finally:
            holder.kill()
            holder.stdin.close()
            holder.stdout.close()
        server.enqueue(Reply(text="taken over"))
        after = run_cli(["run", "now?", "--continue", *flags(server, db)], workspace)
        assert after.returncode == 0 and after.stdout.strip() == "taken over"
        users = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"]
        assert users == ["hello", "now?"]


def test_fake_server_rejects_invalid_tool_arguments_like_llama_cpp():
    """The strict server's 500 for invalid-JSON arguments in the history (what the wire step
    guards against), checked on its own."""
    import httpx

    body = {
        "model": "fake-model",
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": "b'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ],
    }
    with FakeOpenAI() as srv:
        answer = httpx.post(f"{srv.base_url}/chat/completions", json=body)
    assert answer.status_code == 500
    assert "Failed to parse tool call arguments as JSON" in answer.json()["error"]["message"]
