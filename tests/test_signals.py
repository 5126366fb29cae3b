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


CTRL_C_TO_ANOTHER_THREAD = r"""
import asyncio, signal, sys, threading
from pathlib import Path
from agent_tui.frontends.cli.common import run_headless

EPOLL_WAITS = {"232", "281", "441"}  # x86_64 epoll_wait, epoll_pwait, epoll_pwait2
main_tid = threading.get_native_id()

def ctrl_c_once_the_loop_sleeps():
    # The kernel gives a process's signal to any thread: here to this one, at the moment the
    # event loop sleeps with nothing scheduled (a reply stalled mid-stream).
    syscall = Path(f"/proc/self/task/{main_tid}/syscall")
    while syscall.read_text().split()[0] not in EPOLL_WAITS:
        threading.Event().wait(0.001)
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)

async def work():
    threading.Thread(target=ctrl_c_once_the_loop_sleeps, daemon=True).start()
    await asyncio.get_running_loop().create_future()
    return 0

sys.exit(run_headless(work))
"""


class TestCtrlCReachesTheLoop:
    def test_ctrl_c_taken_by_another_thread_still_ends_a_sleeping_run(self):
        """Ctrl-C delivered to a thread other than the main one, while the event loop sleeps
        with no timer: the run ends with 130. The shutdown guard owns the signal wake-up pipe,
        so nothing woke the loop to run Python's SIGINT handler; a headless run whose reply had
        stalled mid-stream sat until something else woke it (test_ctrl_c_mid_stream_saves_the_session
        failed so, now and then)."""
        proc = subprocess.Popen(
            [sys.executable, "-c", CTRL_C_TO_ANOTHER_THREAD],
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
        )
        try:
            _, stderr = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError("the run did not end after Ctrl-C") from None
        assert proc.returncode == 130, stderr
