"""Reply → drawn at turn N of a chat, in each agent's TUI in tmux (a row of benchmarks/peers.py).

Apart from peers.py because it drives a whole conversation rather than one launch. Each turn
types `turnN go` and Enter; benchmarks/peer_server.py answers a `turnN go` message with text
naming N (`zqNx`) and stamps when that answer was written; the screen is polled (every 5 ms)
until the token shows. The figure is the poll that saw it minus the stamp of the answer to the
agent's main request (the one that offers the shell tool: a side request for a title may carry
the same words). Polling and tmux add the same few milliseconds for every agent.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any, Protocol

SETTLE = 0.2
"""Pause after a reply shows before the next turn is typed, so each agent finishes its turn
(writing its transcript) before being asked again; it is outside the measured span."""
TYPE_PAUSE = 0.3
"""Pause between the typed words and Enter: Codex takes keys that arrive together for a paste
and an Enter inside a paste for a new line. Before the answer, so outside the measured span."""
_SOCKETS = itertools.count()


class StampServer(Protocol):
    def stamps(self) -> list[dict[str, Any]]: ...


def _answered(stamps: list[dict[str, Any]], turn: int, seen: float) -> float | None:
    """When the answer to this turn's main request was sent (before `seen`)."""
    mine = [s for s in stamps if s.get("turn") == turn and s.get("replied") and s["replied"] <= seen]
    main = [s for s in mine if s.get("shell_offered")] or mine
    return max(s["replied"] for s in main) if main else None


def chat_turns(
    cmd: list[str], env: dict[str, str], ready: str, server: StampServer, work: Path, turns: int
) -> dict[int, float]:
    """Seconds from the answer sent to the reply on screen, by turn (missing turns left out)."""
    socket = f"peer-turns-{os.getpid()}-{next(_SOCKETS)}"
    tmux = ["tmux", "-L", socket]
    env_args = [f"{k}={v}" for k, v in env.items()]
    size = ["-x", "120", "-y", "36", "-c", str(work)]
    subprocess.run([*tmux, "new-session", "-d", "-s", "b", *size, "env", "-i", *env_args, *cmd], check=True)

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True).stdout

    drawn: dict[int, float] = {}
    try:
        deadline = time.time() + 60
        while not re.search(ready, screen()):
            if time.time() > deadline:
                return drawn
            time.sleep(0.05)
        for n in range(1, turns + 1):
            server.stamps()  # forget the last turn's
            subprocess.run([*tmux, "send-keys", "-t", "b", "-l", f"turn{n} go"], check=True)
            time.sleep(TYPE_PAUSE)
            subprocess.run([*tmux, "send-keys", "-t", "b", "Enter"], check=True)
            token = f"zq{n}x"
            deadline = time.time() + 60
            while token not in screen():
                if time.time() > deadline:
                    return drawn
                time.sleep(0.005)
            seen = time.time()
            answered = _answered(server.stamps(), n, seen)
            if answered is not None:
                drawn[n] = seen - answered
            time.sleep(SETTLE)
        return drawn
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
