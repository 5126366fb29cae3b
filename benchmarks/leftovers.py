"""Ending what an agent left running after its round (benchmarks/peers.py, peer_turns.py).

Killing the tmux server ends the agent's pane, but not what the agent detached from it: Codex's
TUI starts a `codex app-server` daemon in a session of its own, which outlived every round and
kept a core busy in the next agent's. Each agent runs with a home of its own, so what is left
of a round is found by that home in the environment of the user's processes.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def with_env(marker: str) -> list[int]:
    """Processes (other than this one) whose environment holds `marker` (`NAME=value`)."""
    wanted = marker.encode() + b"\0"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        if (b"\0" + environ).find(b"\0" + wanted) >= 0:
            found.append(int(entry.name))
    return found


HOMES = ("HOME", "CODEX_HOME", "AGENT_TUI_HOME", "CLAUDE_CONFIG_DIR")
"""Where each agent keeps its state; the benchmark gives each round its own."""


def round_markers(env: dict[str, str]) -> list[str]:
    """The round's own homes as `NAME=value`: only those it set apart from this process's (an
    agent run with this process's HOME would otherwise name every process of the user)."""
    return [f"{name}={env[name]}" for name in HOMES if env.get(name) and env[name] != os.environ.get(name)]


def end_leftovers(env: dict[str, str], grace: float = 2.0) -> int:
    """End the process groups of every process still running with one of the round's own homes;
    SIGTERM, then SIGKILL after `grace` seconds. Returns how many processes were found."""
    pids = sorted({pid for marker in round_markers(env) for pid in with_env(marker)})
    groups = set()
    for pid in pids:
        try:
            groups.add(os.getpgid(pid))
        except ProcessLookupError:
            continue
    groups.discard(os.getpgrp())  # never this benchmark's own group
    for group in groups:
        try:
            os.killpg(group, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
