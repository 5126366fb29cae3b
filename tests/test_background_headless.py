"""Background commands in headless `run`: a real subprocess, the local server, a real web server
started by the scripted model, and nothing of it left once `run` exits."""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path

import pytest

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli
from tests.support.signals import kill_group, long_command, read_fifo, start_cli, wait_group_gone


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line holds `marker` (zombies do not count)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def allow_network(home: Path) -> None:
    """The user's config lets sandboxed commands use the network (the server and curl run in
    separate sandboxes)."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text("[sandbox]\nnetwork = true\n")


def tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


class TestBackgroundHeadless:
    def test_model_runs_a_web_server_calls_it_reads_its_log_and_kills_it(
        self, server, workspace, tmp_path, isolated_home
    ):
        """The scripted model starts `python -m http.server` in the background, reads its output,
        curls it, reads the new output, kills it; after `run` no process of it is left."""
        allow_network(isolated_home)
        port = free_port()
        (workspace / "hello.txt").write_text("hello from the workspace\n")
        serve = f"python3 -u -m http.server {port} --bind 127.0.0.1"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": serve, "background": True})]),
            Reply(tool_calls=[("bash_output", {"id": "sh_1", "wait": 30})]),
            Reply(tool_calls=[("bash", {"command": f"curl -s http://127.0.0.1:{port}/hello.txt"})]),
            Reply(tool_calls=[("bash_output", {"id": "sh_1", "wait": 30})]),
            Reply(tool_calls=[("kill_shell", {"id": "sh_1"})]),
            Reply(text="served and stopped"),
        )
        out = run_cli(["run", "serve it", "--yes", "--json", *flags(server, tmp_path / "h.db")], workspace)
        assert out.returncode == 0, out.stderr
        results = tool_results(server.requests[-1])
        assert "sh_1" in results[0] and "ref r_" in results[0]
        assert "Serving HTTP on 127.0.0.1 port" in results[1] and "running" in results[1]
        assert "hello from the workspace" in results[2]
        assert '"GET /hello.txt HTTP/1.1" 200' in results[3] and "Serving HTTP" not in results[3]
        assert "sh_1 killed" in results[4]
        result = json.loads(out.stdout.splitlines()[-1])
        assert result["background"] == [
            {
                "id": "sh_1",
                "command": serve,
                "ref": result["background"][0]["ref"],
                "state": "killed",
                "exit_code": result["background"][0]["exit_code"],
            }
        ]
        assert processes_with(f"http.server {port}") == []

    def test_a_command_still_running_at_exit_is_stopped_and_reported(self, server, workspace, tmp_path):
        """A background command still running when `run` ends is killed, named in a `warning`
        event and in the result's `background` list; no process of it is left."""
        marker = "sleep 321.5"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": f"echo up; {marker}", "background": True})]),
            Reply(text="left it running"),
        )
        out = run_cli(["run", "start it", "--yes", "--json", *flags(server, tmp_path / "h.db")], workspace)
        assert out.returncode == 0, out.stderr
        events = [json.loads(line) for line in out.stdout.splitlines()]
        warnings = [e["message"] for e in events if e["type"] == "warning"]
        assert any("sh_1" in w and marker in w and "still running when run ended" in w for w in warnings)
        assert events[-1]["background"][0]["state"] == "ended with the session"
        assert processes_with(marker) == []


class TestBackgroundSignals:
    @pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
    def test_background_commands_end_with_the_process_and_a_resume_is_told(
        self, server, workspace, tmp_path, sig
    ):
        """SIGTERM, SIGHUP or SIGKILL (the watchdog) of `run` while a background command runs:
        its group dies with the agent, and the next `run --continue` tells the model it was lost."""
        db = tmp_path / "s.db"
        command, fifo, marker = long_command(workspace)  # the sandbox empties /tmp outside it
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": command, "background": True})]),
            Reply(hang=True),  # the run is mid-turn when the signal comes
        )
        proc = start_cli(["run", "go", "--yes", *flags(server, db)], workspace)
        pgid = int(read_fifo(fifo, proc))
        try:
            proc.send_signal(sig)
            proc.communicate(timeout=30)
            assert wait_group_gone(pgid), "the background command outlived the agent"
            assert not marker.exists()
        finally:
            kill_group(pgid)
        server.clear_queue()
        server.enqueue(Reply(text="I see it is gone"))
        done = run_cli(["run", "is the server up?", "--continue", *flags(server, db)], workspace)
        assert done.returncode == 0, done.stderr
        note = server.requests[-1]["messages"][-1]["content"]
        assert "ended when it was last closed: sh_1" in json.dumps(note)
