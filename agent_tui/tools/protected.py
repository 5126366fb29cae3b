"""Paths a file tool may change only with the user's explicit yes, each time.

Writing `.git/config` (`core.fsmonitor`), a git hook, the project's `.agent-tui.toml`, a rules
file the next session obeys, or the user's own config turns one approved edit into code that runs
later without asking. So no allow rule and no "allow for this session" covers them; only an
answer to the question itself, or `--yes` (which means: allow everything). Bash commands are not
parsed for this; the sandbox confines bash.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui import paths

RULES_FILES = frozenset({"agents.md", "agent.md", "claude.md"})
PATH_TOOLS = frozenset({"write_file", "edit_file"})


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def protected_reason(workspace: Path, raw: object) -> str | None:
    """Why writing `raw` (a file tool's path argument) is protected, or None."""
    from agent_tui.tools.workspace import PathError, resolve_path

    try:
        target = resolve_path(workspace, raw)
    except PathError:
        return None  # the tool refuses it anyway, with its own message
    root = workspace.resolve()
    config_dir = paths.config_dir().resolve()
    if _within(target, config_dir):
        return "it is in your agent-tui config folder"
    if target.name == ".agent-tui.toml":
        return "it is the project's agent-tui config"
    if target.name.lower() in RULES_FILES:
        return "it is a rules file every later session obeys"
    try:
        parts = target.relative_to(root).parts
    except ValueError:
        return None
    if ".git" in parts:
        inner = parts[parts.index(".git") + 1 :]
        if inner[:1] == ("config",) or inner[:1] == ("hooks",):
            return "git runs what it says (config, hooks)"
    return None
