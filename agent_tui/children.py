"""The process groups our commands run in, and a watchdog that kills them if we die.

A command runs in its own process group (so a timeout or a cancel kills everything it started).
That is also why nothing kills it when agent-tui itself dies: SIGKILL from the OOM killer or a
user, a crash, power-off of the terminal. PR_SET_PDEATHSIG is not enough on its own: it reaches
only the direct child (bash), never `(sleep 15; touch X)` that bash forked, because the setting
is cleared on fork. So one small watchdog process per agent (started with the first command)
holds the read end of a pipe from us and the list of live groups; when the pipe reaches EOF —
which the kernel guarantees however we end — it SIGKILLs every group still listed.

The watchdog runs in its own session and ignores SIGINT/SIGTERM/SIGHUP, so the signal that ends
the agent (a closed terminal hangs up the whole foreground group) does not end it too.
`kill_all` is the same sweep done from inside, for the last moments of an orderly exit.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading

log = logging.getLogger(__name__)

_WATCHDOG = """\
import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    op, pgid = line[:1], int(line[1:])
    (groups.add if op == "+" else groups.discard)(pgid)
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
"""

_lock = threading.Lock()
_groups: set[int] = set()
_watchdog: subprocess.Popen[bytes] | None = None


def _tell(line: str) -> None:
    """Send one line to the watchdog, starting it on first use. Never raises: without a
    watchdog the groups are still killed on every orderly exit."""
    global _watchdog
    try:
        if _watchdog is None or _watchdog.poll() is not None:
            _watchdog = subprocess.Popen(
                [sys.executable, "-S", "-c", _WATCHDOG],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
            for pgid in _groups - {int(line[1:])}:
                _write(f"+{pgid}\n")
        _write(line)
    except (OSError, ValueError) as exc:
        log.warning("the child watchdog is unavailable: %s", exc)


def _write(line: str) -> None:
    assert _watchdog is not None and _watchdog.stdin is not None
    _watchdog.stdin.write(line.encode())
    _watchdog.stdin.flush()


def register(pgid: int) -> None:
    """A command's process group started: kill it if we die before it ends."""
    with _lock:
        _groups.add(pgid)
        _tell(f"+{pgid}\n")


def unregister(pgid: int) -> None:
    """The group is gone (or killed): forget it, so a reused id is never killed."""
    with _lock:
        if pgid in _groups:
            _groups.discard(pgid)
            _tell(f"-{pgid}\n")


def live_groups() -> set[int]:
    with _lock:
        return set(_groups)


def kill_all() -> None:
    """SIGKILL every registered group (the last sweep of an exit; safe from any thread)."""
    for pgid in live_groups():
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
