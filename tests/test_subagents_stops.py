"""How a sub-agent ends is what its envelope says: a turn limit, its own 98 % block, a cancel and
a provider failure each say so, and the parent's turn goes on (real `run`, local server)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from agent_tui.runtime import paths
from agent_tui.store import open_store
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.cli import flags, run_cli
from tests.support.subagent_model import Model, after_tool, first_user_text, newest_user_text, tool_results

WINDOW = 64_000


def user_file(relative: str, text: str) -> Path:
    path = paths.config_dir() / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def start_run(server: FakeOpenAI, db: Path, workspace: Path) -> subprocess.Popen[str]:
    """`run delegate --json --yes` in the background, its events readable as they come."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "run", "delegate", "--json", "--yes", "--sandbox", "off"]
        + flags(server, db, window=WINDOW),
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_json(args: list[str], cwd: Path) -> list[dict]:
    done = run_cli(["run", *args, "--json", "--yes", "--sandbox", "off"], cwd)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_turn_limit_block_and_provider_failure_each_say_so(workspace, tmp_path):
    """Three children in one step: one defined with max_turns 1 keeps calling tools (stopped:
    turn limit), one whose window is past 98 % with compaction off (stopped: context … blocked),
    one whose provider answers 401 (error); the parent reads the three envelopes and answers."""
    user_file("config.toml", "[compaction]\nenabled = false\n")
    user_file(
        "agents/looper.md",
        "---\nname: looper\ndescription: Keeps listing files.\nmax_turns: 1\n---\nList files forever.\n",
    )

    def child(body: dict) -> Reply:
        brief = first_user_text(body)
        if "loop" in brief:
            return Reply(text="Listing the files first.", tool_calls=[("bash", {"command": "ls"})])
        if "fill" in brief:
            if after_tool(body):
                return Reply(text="should never be asked")
            usage = {"prompt_tokens": WINDOW - 200, "completion_tokens": 5, "total_tokens": WINDOW - 195}
            return Reply(tool_calls=[("bash", {"command": "echo filled"})], usage=usage)
        return Reply(status=401)

    def parent(body: dict) -> Reply:
        if not after_tool(body):
            return Reply(
                tool_calls=[
                    ("task", {"description": "looper", "prompt": "loop over files", "agent": "looper"}),
                    ("task", {"description": "filler", "prompt": "fill the window"}),
                    ("task", {"description": "failer", "prompt": "fail at once"}),
                ]
            )
        return Reply(text="envelopes:\n" + "\n---\n".join(tool_results(body)))

    with FakeOpenAI(window=WINDOW, responder=Model(parent, child)) as server:
        events = run_json(
            ["delegate three things", *flags(server, tmp_path / "s.db", window=WINDOW)], workspace
        )
    ends = {e["description"]: e for e in events if e["type"] == "subagent_finished"}
    assert (ends["looper"]["state"], ends["looper"]["reason"]) == ("stopped", "turn limit")
    assert ends["filler"]["state"] == "stopped" and ends["filler"]["reason"].startswith("context")
    assert ends["failer"]["state"] == "error"
    result = events[-1]
    assert result["ok"], "a child's failure is not the parent's"
    text = result["text"]
    assert 'sub-agent "looper" stopped: turn limit' in text
    assert 'sub-agent "filler" stopped: context' in text and "blocked" in text
    assert 'sub-agent "failer" error' in text
    assert "no final answer; its last text" in text and "Listing the files first." in text


def test_sigterm_cancels_every_child_and_their_commands(workspace, tmp_path):
    """SIGTERM while two children each run a long command: both commands' processes are gone,
    the run exits 143, and both task results in the parent's transcript say `cancelled`."""
    started = threading.Event()
    pids: list[Path] = []

    def child(body: dict) -> Reply:
        brief = first_user_text(body)
        name = "one" if "one" in brief else "two"
        pid_file = workspace / f"{name}.pid"
        pids.append(pid_file)
        if len(pids) == 2:
            started.set()
        return Reply(tool_calls=[("bash", {"command": f"echo $$ > {name}.pid; sleep 60"})])

    def parent(body: dict) -> Reply:
        assert "delegate" in newest_user_text(body)
        return Reply(
            tool_calls=[
                ("task", {"description": "sleeper one", "prompt": "sleep one"}),
                ("task", {"description": "sleeper two", "prompt": "sleep two"}),
            ]
        )

    db = tmp_path / "c.db"
    with FakeOpenAI(window=WINDOW, responder=Model(parent, child)) as server:
        proc = start_run(server, db, workspace)
        try:
            assert started.wait(60), "the children never asked for their commands"
            assert proc.stdout is not None
            running = 0
            for line in proc.stdout:  # wait for both commands to be running, from the events
                event = json.loads(line)
                if event["type"] == "subagent" and event["event"]["type"] == "tool_call_started":
                    running += 1
                if running == 2:
                    break
            deadline = time.monotonic() + 30
            while not all(p.exists() and p.read_text().strip() for p in pids):  # the shells wrote their pid
                assert time.monotonic() < deadline, "the commands never started"
                time.sleep(0.02)
            shells = [int(p.read_text()) for p in pids]
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 143, err
    for pid in shells:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]

    async def task_results() -> list[str]:
        store = await open_store(db)
        try:
            (parent_info,) = [s for s in await store.sessions.list() if s.parent_id is None]
            history = await store.sessions.transcript(parent_info.id)
            return [m.content or "" for m in history if m.role == "tool"]
        finally:
            await store.close()

    results = asyncio.run(task_results())
    assert len(results) == 2 and all("stopped: cancelled" in r for r in results), results


def test_a_crash_mid_child_leaves_parent_and_child_resumable(workspace, tmp_path):
    """SIGKILL while a child's command runs: the parent and the child each resume with `run
    --session` and the strict server accepts their histories (every call answered)."""
    started = threading.Event()

    def child(body: dict) -> Reply:
        if after_tool(body):
            return Reply(text="child resumed")
        started.set()
        return Reply(tool_calls=[("bash", {"command": "sleep 60"})])

    def parent(body: dict) -> Reply:
        if "go on" in newest_user_text(body):  # a resumed child is a session like any other
            return Reply(text="child resumed" if first_user_text(body) == "sleep" else "parent resumed")
        return Reply(tool_calls=[("task", {"description": "sleeper", "prompt": "sleep"})])

    db = tmp_path / "k.db"
    with FakeOpenAI(window=WINDOW, responder=Model(parent, child)) as server:
        proc = start_run(server, db, workspace)
        try:
            assert started.wait(60)
            assert proc.stdout is not None
            for line in proc.stdout:
                event = json.loads(line)
                if event["type"] == "subagent" and event["event"]["type"] == "tool_call_started":
                    break
            proc.kill()
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()

        async def ids() -> tuple[str, str]:
            store = await open_store(db)
            try:
                sessions = await store.sessions.list()
                (parent_info,) = [s for s in sessions if s.parent_id is None]
                (child_info,) = [s for s in sessions if s.parent_id == parent_info.id]
                return parent_info.id, child_info.id
            finally:
                await store.close()

        parent_id, child_id = asyncio.run(ids())
        again = run_cli(
            ["run", "go on", "--session", parent_id, *flags(server, db, window=WINDOW)], workspace
        )
        assert again.returncode == 0 and again.stdout.strip() == "parent resumed", again.stderr
        child_again = run_cli(
            ["run", "go on", "--session", child_id, *flags(server, db, window=WINDOW)], workspace
        )
        assert child_again.returncode == 0, child_again.stderr
        assert child_again.stdout.strip() == "child resumed"


def test_headless_denial_is_told_to_the_child_and_the_parent_goes_on(workspace, tmp_path):
    """Without --yes a child's bash call is denied: the child reads the denial, answers, and
    the parent's run completes (exit 0) with the child's answer in its envelope."""

    def child(body: dict) -> Reply:
        if after_tool(body):
            results = " ".join(tool_results(body))
            return Reply(text="denied, so I stopped" if "Permission denied" in results else "ran it")
        return Reply(tool_calls=[("bash", {"command": "touch child-was-here"})])

    def parent(body: dict) -> Reply:
        if after_tool(body):
            return Reply(text=tool_results(body)[0])
        return Reply(tool_calls=[("task", {"description": "toucher", "prompt": "touch a file"})])

    with FakeOpenAI(window=WINDOW, responder=Model(parent, child)) as server:
        done = run_cli(
            ["run", "delegate", "--sandbox", "off", *flags(server, tmp_path / "d.db", window=WINDOW)],
            workspace,
        )
    assert done.returncode == 0, done.stderr
    assert 'sub-agent "toucher" completed' in done.stdout and "denied, so I stopped" in done.stdout
    assert not (workspace / "child-was-here").exists()
