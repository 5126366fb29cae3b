"""The project files that extend the agent — custom commands, skills and sub-agent definitions in
`.claude/` and `.agent-tui/` — as the folder's trust sees them.

Each of them puts a repository's words in front of the model (a command's prompt, a skill's
instructions, an agent's system prompt) or code beside them (a skill's scripts, a command's
`` !`cmd` `` lines), so, like `.agent-tui.toml` and `.claude/settings.json`, they load only in a
trusted folder and the trust hash covers every file under these folders: one edited or added
after the folder was trusted makes it ask again. A plain module (no layer), so trust.py and
config.py may use it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from agent_tui.project_layout import EXTENSION_BASES, EXTENSION_KINDS

TREES = tuple(base / kind for base in EXTENSION_BASES for kind in EXTENSION_KINDS)
"""Folders under a project whose files wait for trust."""

MAX_READ = 400
"""Files whose contents are hashed (in path order: commands, skills, agents); past them a file
counts by its name, size and modification time, so a skill vendoring thousands of files stays
cheap to check at every start while an edit there still asks again."""


def _walk(directory: str, rel: str, out: list[str]) -> None:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        here = f"{rel}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            _walk(entry.path, here, out)
        elif entry.is_file():  # a link to a file is read through; one to a folder is not followed
            out.append(here)


def _listing(folder: Path) -> list[str]:
    """Every file under the trees, as a `/` path relative to `folder` (scandir: no stat per
    file, so a skill vendoring a tree stays cheap to list)."""
    found: list[str] = []
    for tree in TREES:
        root = folder / tree
        if root.is_dir() and not root.is_symlink():
            _walk(str(root), tree.as_posix(), found)
    return found


def files(folder: Path) -> list[Path]:
    """Every file under the trees, relative to `folder` (links to directories are not
    followed: what they hold is not the repository's)."""
    return [Path(rel) for rel in _listing(folder)]


def digest(folder: Path) -> str | None:
    """sha256 over the trees' file names and contents; None when the folder has none."""
    listed = _listing(folder)
    if not listed:
        return None
    h = hashlib.sha256()
    base = str(folder)
    for number, rel in enumerate(listed):
        path = os.path.join(base, rel)
        try:
            if number < MAX_READ:
                with open(path, "rb") as fh:
                    mark = hashlib.sha256(fh.read()).digest()
            else:
                st = os.stat(path)
                mark = f"{st.st_size}:{st.st_mtime_ns}".encode()
        except OSError:
            mark = b"\0unreadable"
        h.update(rel.encode() + b"\0" + mark)
    return h.hexdigest()


def withheld(folder: Path) -> tuple[str, ...]:
    """The commands and skills an untrusted folder does not load, as the trust notice and
    dialog list them (sub-agent definitions are listed by agent/definitions.py)."""
    out: list[str] = []
    for rel in files(folder):
        parts = rel.parts
        kind = parts[1]
        if kind == "commands" and rel.suffix == ".md":
            name = ":".join(Path(*parts[2:]).with_suffix("").parts)
            out.append(f"command /{name} ({rel.as_posix()})")
        elif kind == "skills" and rel.name == "SKILL.md" and len(parts) == 4:
            out.append(f"skill {parts[2]} ({rel.as_posix()})")
    return tuple(out)
