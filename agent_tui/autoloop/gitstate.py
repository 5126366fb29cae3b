"""Which files an iteration changed, from git, when the workspace is a git repository.

`git status --porcelain` alone cannot tell that a file already modified before the iteration was
modified again, so each listed path is also stat'ed (size and mtime); and when the iteration made
commits, `git diff --name-only` between the two HEADs adds what they touched.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's well-known empty tree: the 'before' of a repository's first commit."""
GIT_TIMEOUT = 20.0


@dataclass(frozen=True)
class GitSnapshot:
    """The working tree's state at one moment."""

    root: Path
    """Top of the repository (porcelain paths are relative to it)."""
    head: str | None
    """HEAD's commit, None before the first commit."""
    entries: dict[str, tuple[str, int, int]]
    """path → (porcelain status, mtime_ns, size) for every listed path (-1 when missing)."""


async def _git(cwd: Path, *args: str) -> tuple[int, bytes]:
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            *args,
            cwd=str(cwd),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            stdin=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return 127, b""
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        log.warning("git %s timed out in %s", args[0], cwd)
        return 124, b""
    return proc.returncode or 0, out


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError:
        return -1, -1
    return st.st_mtime_ns, st.st_size


def parse_porcelain(raw: bytes) -> dict[str, str]:
    """`git status --porcelain -z` → path → two-letter status (renames keep the new path)."""
    out: dict[str, str] = {}
    parts = raw.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(parts):
        item = parts[i]
        i += 1
        if len(item) < 4:
            continue
        status, path = item[:2], item[3:]
        out[path] = status
        if "R" in status or "C" in status:
            i += 1  # the original path follows a rename or copy
    return out


async def snapshot(workspace: Path) -> GitSnapshot | None:
    """The state now, or None when the workspace is not in a git repository (or git is absent)."""
    code, out = await _git(workspace, "rev-parse", "--show-toplevel")
    if code != 0 or not out.strip():
        return None
    root = Path(out.decode("utf-8", "surrogateescape").strip())
    code, head = await _git(root, "rev-parse", "--verify", "-q", "HEAD")
    code_s, status = await _git(root, "status", "--porcelain", "-z", "--untracked-files=all")
    if code_s != 0:
        return None
    listed = parse_porcelain(status)
    entries = {path: (st, *_stat(root / path)) for path, st in listed.items()}
    head_id = (head.decode().strip() or None) if code == 0 else None
    return GitSnapshot(root, head_id, entries)


def _ignored(path: Path, ignore: Sequence[Path]) -> bool:
    return any(path == own or path.is_relative_to(own) for own in ignore)


async def changed_files(
    before: GitSnapshot | None, after: GitSnapshot | None, ignore: Sequence[Path] = ()
) -> tuple[str, ...]:
    """Paths (relative to the repository root) that changed between the two snapshots, but
    none at or under `ignore` (agent-tui's own database and logs change every iteration)."""
    if before is None or after is None:
        return ()
    changed = {
        path
        for path in before.entries.keys() | after.entries.keys()
        if before.entries.get(path) != after.entries.get(path)
    }
    if after.head and after.head != before.head:
        code, out = await _git(after.root, "diff", "--name-only", "-z", before.head or EMPTY_TREE, after.head)
        if code == 0:
            changed |= {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}
    if ignore:
        resolved = [Path(os.path.abspath(p)) for p in ignore]
        changed = {p for p in changed if not _ignored(Path(os.path.abspath(after.root / p)), resolved)}
    return tuple(sorted(p.rstrip(os.sep) for p in changed))
