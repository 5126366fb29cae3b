"""A command's process group, from start to the last process gone: what `bash` and the background
registry share.

A command runs as `bash -c` (wrapped by the sandbox when one is active) in a new session, so a new
process group, registered with the watchdog. Ending it means SIGTERM to the whole group, a grace,
then SIGKILL — nothing it started outlives it. `bash` (tools/bash.py) reads a foreground command's
output; the background registry (tools/background.py) reads a background one's. Neither knows the
other: both start commands through `spawn` and stop them through `terminate_group`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.base.units import seconds
from agent_tui.runtime import children
from agent_tui.tools.sandbox import BlockScan, Sandbox

log = logging.getLogger(__name__)

CHUNK_BYTES = 64 * 1024
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL."""
DRAIN_GRACE = 1.0
"""Seconds to finish reading output after the process group is gone."""

ENV_OVERRIDES = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "TERM": "dumb",
}


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running (zombies do not count).

    A plain `killpg(pgid, 0)` also succeeds for zombies, which linger when the init process does
    not reap orphans (as in some containers), so on Linux /proc is read — but only when it
    succeeds: a group with no process at all (the usual end of a command, its bash reaped) is
    told by that one system call; otherwise the scan reads each process's stat raw (~1 ms for
    200 processes, against ~4 ms through pathlib).
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        if not os.path.isdir("/proc"):
            return False  # not ours to signal: nothing of ours is left
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    for name in names:
        if not name.isdigit():
            continue
        try:  # raw reads: the Path API costs ~5x as much over a few hundred processes
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            stat = os.read(fd, 1024)
        except OSError:
            continue
        finally:
            os.close(fd)
        # Fields after the parenthesised command: state, ppid, pgrp, ...
        fields = stat[stat.rfind(b")") + 2 :].split(b" ", 3)
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def terminate_group(pgid: int, grace: float = KILL_GRACE) -> bool:
    """SIGTERM the process group, wait up to `grace` for it to go, then SIGKILL what remains.
    True when the group was seen gone (the caller need not look again)."""
    if not group_alive(pgid):
        return True
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    # Orphans in the group are not our children: nothing to await, so poll. Soon at first: what
    # is usually left after a command is a process already on its way out (the sandbox's own,
    # tearing down), gone within milliseconds — a fixed 50 ms was half of some steps.
    pauses = iter((0.002, 0.005, 0.01, 0.02))
    while time.monotonic() < deadline:
        await asyncio.sleep(next(pauses, 0.05))
        if not group_alive(pgid):
            return True
    log.info("process group %d outlived SIGTERM by %.1f s; sending SIGKILL", pgid, grace)
    _signal_group(pgid, signal.SIGKILL)
    return False


class ExitWatch(asyncio.subprocess.SubprocessStreamProtocol):
    """Tells when bash itself exits. `Process.wait()` also waits for the pipes to close, which a
    background child holding stdout would delay until the timeout."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=CHUNK_BYTES, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


def format_seconds(value: float) -> str:
    return seconds(value) if value < 100 else f"{value:.0f} s"


class OutputCap:
    """How many bytes one command may print, and whether it printed more."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.hit = False

    def take(self, seen: int, chunk: bytes) -> bytes:
        """The part of `chunk` still under the cap, after `seen` bytes; marks the cap hit."""
        room = self.limit - seen
        if len(chunk) > room:
            self.hit = True
            return chunk[: max(room, 0)]
        return chunk


@dataclass(frozen=True)
class Launch:
    """A started command: its pipes, and the sandbox facts its status line reports."""

    transport: asyncio.SubprocessTransport
    protocol: ExitWatch
    sandbox: Sandbox | None
    scan: BlockScan | None
    missing: list[Any]
    env_note: str | None


async def spawn(
    argv: list[str], workspace: Path, env: dict[str, str], kill_grace: float = KILL_GRACE
) -> tuple[asyncio.SubprocessTransport, ExitWatch]:
    """Start `argv` (bash, or bwrap around it) in its own process group. A cancellation that
    lands while asyncio is still connecting the pipes would otherwise kill bash alone and
    orphan what it already started."""
    loop = asyncio.get_running_loop()
    started = asyncio.ensure_future(
        loop.subprocess_exec(
            lambda: ExitWatch(loop),
            *argv,
            cwd=workspace,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # its own process group: killed as a whole
            env={**env, **ENV_OVERRIDES, **children.owner_env()},  # secrets withheld (tools/env.py)
        )
    )
    try:
        return await asyncio.shield(started)
    except asyncio.CancelledError:
        if not started.cancelled():
            try:
                transport, protocol = await started
            except Exception:  # noqa: BLE001 - it never started: nothing to stop
                raise asyncio.CancelledError from None
            await shutdown(transport.get_pid(), protocol, kill_grace)
            transport.close()
        raise


async def shutdown(pgid: int, protocol: ExitWatch, kill_grace: float = KILL_GRACE) -> None:
    """End the group and let the child watcher reap bash, so nothing is left half-closed."""
    await terminate_group(pgid, kill_grace)
    try:
        await asyncio.wait_for(protocol.exited.wait(), kill_grace)
    except TimeoutError:
        log.warning("bash (pid %d) not reaped after its group was killed", pgid)
