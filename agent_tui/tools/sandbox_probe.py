"""Whether bubblewrap can sandbox commands here, asked once per PATH.

bwrap must be present *and* able to create namespaces (unprivileged user namespaces can be
disabled), and the kernel must take the socket filter (tools/seccomp.py). The probe runs bwrap the
way `Sandbox.wrap` does; when only the filter fails, the sandbox still runs, hiding sockets by
folder alone, and says so in /sandbox.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent_tui.tools import seccomp

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Probe:
    """Whether bwrap can sandbox commands here: its path, or why not."""

    bwrap: str | None
    problem: str | None = None
    seccomp: bool = True
    """bwrap loaded the socket filter (tools/seccomp.py); without it sockets are hidden by folder."""


def base_flags(network: bool) -> list[str]:
    flags = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not network:
        flags.append("--unshare-net")
    return [*flags, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]


def probe(path_env: str | None = None) -> Probe:
    """Find bwrap on `path_env` (default $PATH) and check it can build a sandbox (cached per PATH)."""
    return _probe(os.environ.get("PATH", os.defpath) if path_env is None else path_env)


@lru_cache(maxsize=8)
def _probe(path_env: str) -> Probe:
    if not sys.platform.startswith("linux"):
        return Probe(None, f"the sandbox needs Linux and bubblewrap; {sys.platform} is not supported yet")
    found = shutil.which("bwrap", path=path_env)
    if found is None:
        return Probe(None, "bwrap (bubblewrap) is not installed or not on PATH")
    done = _try(found, seccomp.filter_file())
    if isinstance(done, str):
        return Probe(None, done)
    if done.returncode != 0:
        plain = _try(found, None)
        if not isinstance(plain, str) and plain.returncode == 0:
            log.warning("bwrap could not load the socket filter: %s", done.stderr.strip()[-200:])
            return Probe(found, seccomp=False)
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Probe(
            None,
            f"bwrap cannot create namespaces here ({why}); unprivileged user namespaces may be "
            "disabled (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap)",
        )
    return Probe(found, seccomp=seccomp.filter_file() is not None)


def _try(bwrap: str, bpf: Path | None) -> subprocess.CompletedProcess[str] | str:
    """bwrap run as `wrap` runs it (an emptied read-only /tmp, the filter when there is one)."""
    argv = [bwrap, *base_flags(network=False), "--tmpfs", "/tmp", "--remount-ro", "/tmp"]
    argv += ["--seccomp", str(seccomp.FD)] if bpf is not None else []
    argv += ["--", "true"]
    try:
        return subprocess.run(
            seccomp.launcher(argv, bpf) if bpf is not None else argv,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not be run ({exc})"


async def probe_async(path_env: str | None = None) -> Probe:
    return await asyncio.to_thread(probe, path_env)
