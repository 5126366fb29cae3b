"""Where git reads code from for a workspace: what the sandbox keeps read-only.

Git runs what its metadata says on the user's next command: `core.fsmonitor` or an alias in a
config, a hook, a `.git` *file* pointing at a git dir someone else wrote, a `commondir` leading
to another config, an `[include]` naming a file in the working tree, a `core.hooksPath` folder
in the working tree. So the whole `.git` (file or folder), the git dir and common dir it leads
to, the hooks folder `core.hooksPath` names, the files `[include]`/`[includeIf]` name, the
global config files and the `.git` of each submodule are read-only in the sandbox. Found by
reading files (no `git` process per command); a workspace that is not in a repository has its
first-level sub-folders' `.git` covered, and a `.git` the command creates is removed afterwards.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)
_MAX_INCLUDE_DEPTH = 4
_MAX_SCAN = 256


@dataclass
class GitMeta:
    """The paths to keep read-only (`paths`) and to remove if a command creates them (`missing`)."""

    top: Path | None = None
    """The working tree's root (the folder holding `.git`), None outside a repository."""
    paths: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)

    def add(self, path: Path) -> None:
        real = Path(os.path.realpath(path))
        if real.exists() or real.is_symlink():
            if real not in self.paths:
                self.paths.append(real)
        elif real.parent.is_dir() and real not in self.missing:
            self.missing.append(real)


def _unquote(value: str) -> str:
    value = value.split(" #")[0].split(" ;")[0].strip() if not value.startswith('"') else value
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return value


def _config_refs(config: Path) -> tuple[list[str], list[str]]:
    """(core.hooksPath values, include paths) a git config file names."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], []
    hooks, includes = [], []
    section = ""
    for line in text.splitlines():
        head = _SECTION.match(line)
        if head:
            section = head.group(1).lower()
            line = head.group(3)
        entry = _ENTRY.match(line)
        if not entry:
            continue
        key, value = entry.group(1).lower(), _unquote(entry.group(2))
        if section == "core" and key == "hookspath":
            hooks.append(value)
        elif section in ("include", "includeif") and key == "path":
            includes.append(value)
    return hooks, includes


def _place(value: str, base: Path) -> Path:
    if value.startswith("~"):
        value = os.path.expanduser(value)
    return Path(value) if os.path.isabs(value) else base / value


def _read_gitdir(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    return _place(text.removeprefix("gitdir:").strip(), dot_git.parent)


def _repository(meta: GitMeta, dot_git: Path) -> None:
    """Add one repository's metadata: the `.git`, its git and common dirs, what configs name."""
    top = dot_git.parent
    meta.add(dot_git)
    gitdir = dot_git if dot_git.is_dir() else _read_gitdir(dot_git)
    if gitdir is None:
        return
    common = gitdir
    try:
        common = _place((gitdir / "commondir").read_text(encoding="utf-8").strip(), gitdir)
    except OSError:
        pass
    for place in (gitdir, common):
        meta.add(place)
    _configs(meta, [common / "config", gitdir / "config.worktree"], top)
    try:
        modules = (top / ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except OSError:
        modules = ""
    for found in _SUBMODULE_PATH.findall(modules):
        sub = top / _unquote(found) / ".git"
        if sub.exists():
            meta.add(sub)


def _configs(meta: GitMeta, configs: list[Path], top: Path | None) -> None:
    seen: set[Path] = set()
    todo = [(c, 0) for c in configs]
    while todo:
        config, depth = todo.pop()
        if config in seen or depth > _MAX_INCLUDE_DEPTH:
            continue
        seen.add(config)
        meta.add(config)
        hooks, includes = _config_refs(config)
        for value in hooks:
            meta.add(_place(value, top or Path.home()))
        for value in includes:
            todo.append((_place(value, config.parent), depth + 1))


def global_configs() -> list[Path]:
    home = Path(os.environ.get("HOME") or Path.home())
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    named = os.environ.get("GIT_CONFIG_GLOBAL")
    return [Path(named)] if named else [home / ".gitconfig", Path(xdg) / "git" / "config"]


def scan(workspace: Path) -> GitMeta:
    """The git metadata around `workspace` (resolved), and `.git` paths not there yet."""
    meta = GitMeta()
    folder = workspace
    while True:
        dot_git = folder / ".git"
        if dot_git.exists() or dot_git.is_symlink():
            meta.top = folder
            _repository(meta, dot_git)
            break
        if folder.parent == folder:
            break
        folder = folder.parent
    if meta.top != workspace:
        meta.add(workspace / ".git")  # a repository created here is undone
    if meta.top is None:
        try:
            with os.scandir(workspace) as entries:
                subs = [e for e, _ in zip(entries, range(_MAX_SCAN), strict=False) if e.is_dir()]
        except OSError:
            subs = []
        for sub in subs:
            dot_git = Path(sub.path) / ".git"
            if dot_git.exists():
                _repository(meta, dot_git)
    _configs(meta, global_configs(), meta.top)
    return meta
