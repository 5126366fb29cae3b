"""Runs one hook command: JSON on stdin, in the project folder, bounded by its timeout.

A hook is the user's own code from a trusted configuration, so it runs like Claude Code runs it:
outside the command sandbox, with the user's environment plus `CLAUDE_PROJECT_DIR` and ours.
It runs in a process group of its own, so a hook past its timeout (or a cancelled turn) is
killed with everything it started — a hook never hangs a turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_CAPTURE = 1 << 20
"""Bytes of stdout or stderr kept from one hook run; the rest is dropped."""


@dataclass(frozen=True)
class ProcessResult:
    """What one hook process did."""

    exit_code: int | None
    """None when it was killed at its timeout or could not start."""
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    error: str | None = None
    """Why it could not start (no shell, a bad folder)."""


def hook_env(workspace: Path, session_id: str, event: str) -> dict[str, str]:
    env = dict(os.environ)
    env["CLAUDE_PROJECT_DIR"] = str(workspace)
    env["AGENT_TUI_PROJECT_DIR"] = str(workspace)
    env["AGENT_TUI_SESSION_ID"] = session_id
    env["AGENT_TUI_HOOK_EVENT"] = event
    return env


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def run_hook_process(
    command: str, payload: dict[str, Any], *, cwd: Path, env: dict[str, str], timeout: float
) -> ProcessResult:
    """Run `command` with `payload` as JSON on stdin; never raises except for cancellation (and
    then the process group is killed first)."""
    shell = shutil.which("bash") or "/bin/sh"
    started = time.monotonic()
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    try:
        proc = await asyncio.create_subprocess_exec(
            shell,
            "-c",
            command,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return ProcessResult(None, "", "", time.monotonic() - started, error=str(exc))
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), timeout)
    except TimeoutError:
        _kill_group(proc)
        await proc.wait()
        return ProcessResult(None, "", "", time.monotonic() - started, timed_out=True)
    except BaseException:
        _kill_group(proc)
        raise
    return ProcessResult(
        proc.returncode,
        out[:MAX_CAPTURE].decode("utf-8", "replace"),
        err[:MAX_CAPTURE].decode("utf-8", "replace"),
        time.monotonic() - started,
    )
