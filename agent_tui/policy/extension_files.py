"""The project files that extend the agent — custom commands, skills and sub-agent definitions in
`.claude/` and `.agent-tui/` — as the folder's trust sees them.

Each of them puts a repository's words in front of the model (a command's prompt, a skill's
instructions, an agent's system prompt) or code beside them (a skill's scripts, a command's
`` !`cmd` `` lines), so, like `.agent-tui.toml` and `.claude/settings.json`, they load only in a
trusted folder and the trust hash covers every file under these folders: one edited or added
after the folder was trusted makes it ask again. A plain module (no layer), so trust.py and
config.py may use it.

`walk` is the one answer to "which files does this tree hold", for the hash and for the command,
skill and agent loaders alike: a tree that the hash walked differently from a loader let a
symlinked `.claude/commands` (to `tools/cmds`) change what `/deploy` runs while the folder stayed
trusted. A link is followed when what it points to lies inside the project folder (then its
files are hashed, so a change there asks for trust again); a link leading out of it is neither
hashed nor loaded — what it holds is not the repository's.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from agent_tui.policy.project_layout import EXTENSION_BASES, EXTENSION_KINDS

TREES = tuple(base / kind for base in EXTENSION_BASES for kind in EXTENSION_KINDS)
"""Folders under a project whose files wait for trust."""

MAX_READ = 400
"""Files whose contents are hashed (in path order: commands, skills, agents); past them a file
counts by its name, size and modification time, so a skill vendoring thousands of files stays
cheap to check at every start while an edit there still asks again."""


def _inside(real: str, root: str | None) -> bool:
    return root is None or real == root or real.startswith(root.rstrip("/") + "/")


def _walk(directory: str, rel: str, out: list[str], root: str | None, seen: set[str]) -> None:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        here = f"{rel}/{entry.name}"
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            if not _inside(real, root):
                continue  # leads out of the project: not the repository's
            if os.path.isdir(real):
                if real not in seen:  # a loop of links is walked once
                    seen.add(real)
                    _walk(entry.path, here, out, root, seen)
            elif os.path.isfile(real):
                out.append(here)
        elif entry.is_dir(follow_symlinks=False):
            _walk(entry.path, here, out, root, seen)
        elif entry.is_file(follow_symlinks=False):
            out.append(here)


def _walk_tree(directory: Path, inside: Path | None) -> list[str]:
    root = os.path.realpath(inside) if inside is not None else None
    real = os.path.realpath(directory)
    if not os.path.isdir(real) or not _inside(real, root):
        return []
    out: list[str] = []
    _walk(str(directory), "", out, root, {real})
    return out


def walk(directory: Path, inside: Path | None) -> list[Path]:
    """Every file under `directory` (itself possibly a link), in name order, following links
    only while they stay inside `inside` (None: the user's own folders, followed anywhere)."""
    return [directory / rel[1:] for rel in _walk_tree(directory, inside)]


def _listing(folder: Path) -> list[str]:
    """Every file under the trees, as a `/` path relative to `folder` (scandir: no stat per
    file, so a skill vendoring a tree stays cheap to list)."""
    found: list[str] = []
    for tree in TREES:
        found += [tree.as_posix() + rel for rel in _walk_tree(folder / tree, folder)]
    return found


def files(folder: Path) -> list[Path]:
    """Every file under the trees, relative to `folder` (links leading out of it are not
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
