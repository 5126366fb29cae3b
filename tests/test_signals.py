"""SIGTERM, SIGHUP and SIGKILL of a real agent-tui process while a command runs: the command's
whole process group dies with the agent (`(sleep 15; touch X)` used to finish after exit), the
run exits 143 / 129 in one line, the session is saved, and the next turn works."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from agent_tui.tools.bash import _group_alive
from testkit.fake_openai import Reply
from tests.support.cli import flags
from tests.support.signals import kill_group, long_command, read_fifo, start_cli, wait_group_gone


class TestHeadlessSignals:
    @pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
    def test_signal_cancels_the_turn_kills_the_group_and_saves(self, server, workspace, tmp_path, sig, code):
        """SIGTERM/SIGHUP while `(sleep 15; touch X)` runs: exit 143/129 with one line, the
        group is dead at exit, and `run --continue` answers the next turn."""
        db = tmp_path / "s.db"
        command, fifo, marker = long_command(workspace)  # the sandbox empties /tmp outside it
        server.enqueue(Reply(tool_calls=[("bash", {"command": command})]))
        proc = start_cli(["run", "go", "--yes", *flags(server, db)], workspace)
        pgid = int(read_fifo(fifo, proc))
        try:
            proc.send_signal(sig)
            _, stderr = proc.communicate(timeout=30)
            assert proc.returncode == code, stderr
            assert not _group_alive(pgid) and not marker.exists()
            assert "Traceback" not in stderr
            assert "interrupted; the session is saved" in stderr
        finally:
            kill_group(pgid)

        server.enqueue(Reply(text="next turn works"))
        done = subprocess.run(
            [sys.executable, "-m", "agent_tui", "run", "again", "--continue", *flags(server, db)],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "next turn works"
        sent = server.requests[-1]["messages"]
        calls = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        answered = {m.get("tool_call_id") for m in sent if m["role"] == "tool"}
        assert calls and set(calls) <= answered

    def test_sigkill_of_the_agent_still_kills_the_group(self, server, workspace, tmp_path):
        """SIGKILL leaves no handler to run: the watchdog sees its pipe close and kills the
        command's group (PR_SET_PDEATHSIG would reach bash only, not the subshell)."""
        db = tmp_path / "k.db"
        command, fifo, marker = long_command(workspace)  # the sandbox empties /tmp outside it
        server.enqueue(Reply(tool_calls=[("bash", {"command": command})]))
        proc = start_cli(["run", "go", "--yes", *flags(server, db)], workspace)
        pgid = int(read_fifo(fifo, proc))
        try:
            proc.kill()
            proc.communicate(timeout=30)
            assert wait_group_gone(pgid), "the command's group outlived a SIGKILLed agent"
            assert not marker.exists()
        finally:
            kill_group(pgid)
