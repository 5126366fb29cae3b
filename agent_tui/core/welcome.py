"""The first screen of a new session, and `/status`'s list of what the session loaded.

A Claude Code user opening agent-tui in a folder wants to know at a glance which model answers,
which folder it works in, whether the folder's own hooks, commands and settings apply (trust),
and which rules and memories the model reads every turn. The same facts back `/status` (for
every front end, hence here and not in ui/).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.base.units import human_size
from agent_tui.context.prompt import find_rules_file
from agent_tui.policy import project_layout, trust
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession

PROJECT_FILES = (
    project_layout.CONFIG_NAME,
    project_layout.LOCAL_CONFIG_NAME,
    str(project_layout.OWN_DIR),
    str(project_layout.CLAUDE_DIR),
)
"""What trusting a folder turns on lives in these (trust.py hashes the same)."""
KEY_HINTS = "/ commands · !cmd shell · # note saves a memory · Esc Esc rewind"


def trust_line(workspace: Path, trusted: bool) -> str:
    """The folder's trust in words, with what to do about it."""

    if trusted:
        return "trusted: its hooks, commands and settings apply"
    if not any((workspace / name).exists() for name in PROJECT_FILES):
        return "nothing here needs trust (no .claude/ or .agent-tui.toml)"
    if trust.state(workspace) == "changed":
        return "changed since you trusted it: its hooks, commands and settings are off (/trust)"
    return "not trusted: its hooks, commands and settings are off (/trust)"


def _size(path: Path) -> str:
    try:
        return human_size(path.stat().st_size)
    except OSError:
        return "?"


def loaded_files(session: AgentSession) -> list[str]:
    """The files the model reads every turn: the rules file, the memories, active skills."""

    names = [section.name for section in session.prompts.sections(None)]
    loaded = []
    rules = find_rules_file(session.workspace)
    if "rules" in names and rules is not None:
        loaded.append(f"{rules.name} ({_size(rules)})")
    if "memories" in names:
        memories = session.prompts.user_prompts.memories_path
        loaded.append(f"memories {paths.shown(memories)} ({_size(memories)})")
    loaded += [f"skill {name.removeprefix('skill:')}" for name in names if name.startswith("skill:")]
    return loaded


def welcome_text(session: AgentSession, trusted: bool) -> str:
    loaded = loaded_files(session)
    rows = [
        ("Model", session.model),
        ("Folder", paths.shown(session.workspace)),
        ("Trust", trust_line(session.workspace, trusted)),
        ("Loaded", " · ".join(loaded) if loaded else "no CLAUDE.md or AGENTS.md, no memories"),
        ("Keys", KEY_HINTS),
    ]
    return "\n".join(f"{key:<6}  {value}" for key, value in rows)
