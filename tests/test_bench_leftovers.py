"""benchmarks/peers.py ends what an agent detached during its round (Codex's `codex app-server`
daemon outlived every TUI round and kept a core busy in the next agent's)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from leftovers import end_leftovers, round_markers


def test_a_detached_daemon_with_the_rounds_home_is_ended(tmp_path):
    """A process in a session of its own (as the daemon is) with the round's HOME is ended,
    and one with another home is left alone."""
    home = tmp_path / "home-codex"
    other = tmp_path / "home-other"
    env = {**os.environ, "HOME": str(home)}
    daemon = subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)
    bystander = subprocess.Popen(
        ["sleep", "60"], env={**os.environ, "HOME": str(other)}, start_new_session=True
    )
    try:
        assert end_leftovers({"HOME": str(home)}) == 1
        assert daemon.wait(5) is not None
        assert bystander.poll() is None
    finally:
        for proc in (daemon, bystander):
            proc.kill()
            proc.wait()


def test_a_round_run_with_the_users_own_home_names_nothing():
    """agent-tui's rounds keep the user's HOME (their own home is AGENT_TUI_HOME): that HOME
    names every process of the user, this benchmark and its shell among them."""
    env = {**os.environ, "AGENT_TUI_HOME": "/nonexistent/agent-tui-round"}
    assert round_markers(env) == ["AGENT_TUI_HOME=/nonexistent/agent-tui-round"]
    assert end_leftovers(env) == 0
