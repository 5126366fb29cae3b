"""Paths a file tool may change only with the user's explicit yes, each time.

Writing anything git reads (`.git/config` with `core.fsmonitor`, a hook, `.git/commondir`
pointing git at a planted config, `info/attributes` filters…), the project's `.agent-tui.toml` or `.agent-tui.local.toml`, a
rules file the next session obeys, or the user's own config turns one approved edit into code
that runs later without asking. So the whole of every `.git` is protected, and so are the places
git is redirected to: the folder `core.hooksPath` names, the git dir a `.git` file names and the
common dir its `commondir` names. So no allow rule and no "allow for this session" covers them; only an
answer to the question itself, or `--yes` (which means: allow everything). Bash commands are not
parsed for this; the sandbox confines bash.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from agent_tui.runtime import paths
from agent_tui.tools.workspace import PathError, resolve_path, within

RULES_FILES = frozenset({"agents.md", "agent.md", "claude.md"})


def _within(path: Path, folder: Path) -> bool:
    return within(folder, path)


_READ_LIMIT = 64 << 10
"""Git's pointer files and config are small; a planted huge one is read no further than this."""
_HOOKS_PATH = re.compile(r"^\s*hookspath\s*=\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)


def _head(path: Path) -> str:
    """The start of a small regular file, or "" (missing, a folder, a FIFO: never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, _READ_LIMIT).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _git_redirects(root: Path) -> list[tuple[Path, str]]:
    """Folders outside any `.git` that git of the repository at or above `root` reads as its own:
    the git dir a `.git` file names, its `commondir`, and `core.hooksPath`."""
    found: list[tuple[Path, str]] = []
    for top in (root, *root.parents):
        dot_git = top / ".git"
        if dot_git.is_dir():
            git_dir = dot_git
        elif dot_git.is_file():
            text = _head(dot_git).strip()
            if not text.lower().startswith("gitdir:"):
                break
            git_dir = (top / text[len("gitdir:") :].strip()).resolve()
            found.append((git_dir, "it is the git dir the .git file names"))
        else:
            continue
        git_dirs = [git_dir]
        common = _head(git_dir / "commondir").strip()
        if common:
            common_dir = (git_dir / common).resolve()
            git_dirs.append(common_dir)
            found.append((common_dir, "it is the git common dir .git/commondir names"))
        for folder in git_dirs:
            for match in _HOOKS_PATH.finditer(_head(folder / "config")):
                value = match.group(1).strip().strip('"')
                if value:
                    hooks = Path(os.path.expanduser(value))
                    found.append(((top / hooks).resolve(), "git runs the hooks core.hooksPath names"))
        break
    return found


def protected_reason(workspace: Path, raw: object) -> str | None:
    """Why writing `raw` (a file tool's path argument) is protected, or None."""

    try:
        target = resolve_path(workspace, raw)
    except PathError:
        return None  # the tool refuses it anyway, with its own message
    root = workspace.resolve()
    config_dir = paths.config_dir().resolve()
    if _within(target, config_dir):
        return "it is in your agent-tui config folder"
    if target.name == paths.CONFIG_NAME:
        return "it is the project's agent-tui config"
    if target.name == paths.LOCAL_CONFIG_NAME:
        return "it is the project's local agent-tui config (where Always writes rules)"
    if target.name.lower() in RULES_FILES:
        return "it is a rules file every later session obeys"
    try:
        parts = target.relative_to(root).parts
    except ValueError:
        return None
    if any(part.lower() == ".git" for part in parts):
        return "git runs what it says (anything in .git: config, hooks, commondir…)"
    for folder, why in _git_redirects(root):
        if _within(target, folder):
            return why
    return None
