"""Reading a file the prompt will carry, the way the file tools read files.

A rules file (AGENTS.md) comes from a repository someone else prepared: a symlink to
`/proc/self/environ` or `~/.ssh/id_ed25519`, a FIFO that blocks forever, or a device would put
secrets in the system prompt or hang start-up. So a file is read only when, with symlinks
resolved, it is a regular file inside the folder it belongs to (the workspace for rules files,
the config dir for memories and skills), never under /proc, /sys or /dev, and at most
`max_bytes` of it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_SYSTEM = (Path("/proc"), Path("/sys"), Path("/dev"))


class UnsafeFile(OSError):
    """A file refused for the prompt; the message says why, for the user."""


def read_confined(path: Path, max_bytes: int, inside: Path | None = None) -> tuple[bytes, int]:
    """(the first `max_bytes` bytes, the file's size). UnsafeFile when the file is not a regular
    file inside `inside` (symlinks resolved); OSError when it cannot be read."""
    real = Path(os.path.realpath(path))
    if inside is not None:
        root = Path(os.path.realpath(inside))
        if real != root and root not in real.parents:
            raise UnsafeFile(f"{path.name} leads outside {root} (to {real}); not loaded")
    if any(real == s or s in real.parents for s in _SYSTEM):
        raise UnsafeFile(f"{path.name} leads to {real}, a system path; not loaded")
    # O_NONBLOCK: a FIFO put in its place between the check and the open cannot hang us.
    fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(f"{path.name} is not a regular file; not loaded")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes)
        return data, info.st_size
    finally:
        os.close(fd)
