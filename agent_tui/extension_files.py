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

TREES = tuple(
    Path(base) / kind for base in (".claude", ".agent-tui") for kind in ("commands", "skills", "agents")
)
"""Folders under a project whose files wait for trust."""

MAX_FILES = 5000
"""Files hashed per folder at most (a skill folder with a vendored tree stays cheap to check);
past it the count itself is hashed, so adding files still changes the hash."""


def files(folder: Path) -> list[Path]:
    """Every file under the trees, by path relative to `folder` (links to directories are not
    followed: what they hold is not the repository's)."""
    found: list[Path] = []
    for tree in TREES:
        root = folder / tree
        if not root.is_dir() or root.is_symlink():
            continue
        for here, dirs, names in os.walk(root):
            dirs.sort()
            for name in sorted(names):
                path = Path(here) / name
                if path.is_file():
                    found.append(path.relative_to(folder))
    return found


def digest(folder: Path) -> str | None:
    """sha256 over the trees' file names and contents; None when the folder has none."""
    listed = files(folder)
    if not listed:
        return None
    h = hashlib.sha256()
    for rel in listed[:MAX_FILES]:
        try:
            data = (folder / rel).read_bytes()
        except OSError:
            data = b"\0unreadable"
        h.update(rel.as_posix().encode() + b"\0" + hashlib.sha256(data).digest())
    h.update(str(len(listed)).encode())
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
