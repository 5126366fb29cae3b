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

Groups are registered right after the spawn returns, but the command may already be running by
then. So commands also get `AGENT_TUI_OWNER=<token>` in their environment, which every process
they start inherits; on Linux the sweep also kills every process whose environment carries the
token (this also reaches a child that left the group with `setsid`). Reading a process's
environment takes that process's memory lock, which on a busy machine can wait behind it: the
sweep first reads `/proc/<pid>/stat` (no such lock) and skips every process that started before
agent-tui did — none of them can carry the token — so only our own era's processes are read.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import subprocess
import sys
import threading
from pathlib import Path

log = logging.getLogger(__name__)

OWNER_ENV = "AGENT_TUI_OWNER"
_TOKEN = f"{os.getpid()}-{secrets.token_hex(6)}"

_WATCHDOG = """\
import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
marker = sys.argv[1].encode() + b"\\0"
groups = set()
for line in sys.stdin:
    op, pgid = line[:1], int(line[1:])
    (groups.add if op == "+" else groups.discard)(pgid)
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
since = int(sys.argv[2])
if os.path.isdir("/proc"):
    for name in os.listdir("/proc"):
        try:
            with open("/proc/" + name + "/stat", "rb") as fh:
                if int(fh.read().rsplit(b")", 1)[1].split()[19]) < since:
                    continue
            with open("/proc/" + name + "/environ", "rb") as fh:
                if marker in fh.read():
                    os.kill(int(name), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass
"""


def _start_ticks(pid: int | str) -> int:
    """When process `pid` started, in clock ticks since boot (`/proc/<pid>/stat`, field 22)."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        return int(fh.read().rsplit(b")", 1)[1].split()[19])


def _our_start() -> int:
    try:
        return _start_ticks("self")
    except (OSError, ValueError, IndexError):
        return 0  # no /proc: every process is looked at (the sweep then finds none anyway)


_lock = threading.Lock()
_groups: set[int] = set()
_watchdog: subprocess.Popen[bytes] | None = None


def prepare() -> None:
    """Start the watchdog (once) before a command starts: a command killed with us in the
    instant between its spawn and its registration is still found by its token."""
    with _lock:
        _tell(None)


def _tell(line: str | None) -> None:
    """Send one line to the watchdog, starting it on first use. Never raises: without a
    watchdog the groups are still killed on every orderly exit."""
    global _watchdog
    try:
        if _watchdog is None or _watchdog.poll() is not None:
            _watchdog = subprocess.Popen(
                [sys.executable, "-S", "-c", _WATCHDOG, f"{OWNER_ENV}={_TOKEN}", str(_our_start())],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
            for pgid in _groups - ({int(line[1:])} if line else set()):
                _write(f"+{pgid}\n")
        if line:
            _write(line)
    except (OSError, ValueError) as exc:
        log.warning("the child watchdog is unavailable: %s", exc)


def _write(line: str) -> None:
    assert _watchdog is not None and _watchdog.stdin is not None
    _watchdog.stdin.write(line.encode())
    _watchdog.stdin.flush()


def owner_env() -> dict[str, str]:
    """The variable that marks every process a command starts as ours (for the sweep)."""
    return {OWNER_ENV: _TOKEN}


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
    """SIGKILL every registered group and every process carrying our token (the last sweep of
    an exit; safe from any thread)."""
    for pgid in live_groups():
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    if _watchdog is None:
        return  # no command was ever started: nothing can carry the token
    marker = f"{OWNER_ENV}={_TOKEN}\0".encode()
    proc = Path("/proc")
    if not proc.is_dir():
        return
    since = _our_start()
    for entry in proc.iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if _start_ticks(entry.name) < since:
                    continue  # older than us: it cannot carry the token
                if marker in (entry / "environ").read_bytes():
                    os.kill(int(entry.name), signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                continue
