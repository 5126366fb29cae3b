"""Where a project keeps what agent-tui reads from it, declared once.

Config, trust, hooks, custom commands, skills, sub-agent definitions, protected paths and the
sandbox all read a project's own files; each takes their names from here, so a folder added or
renamed is read, hashed for trust and protected alike (tests/test_project_layout.py checks no
other module spells them). Paths are relative to the project's folder. Plain data: no layer is
imported.
"""

from __future__ import annotations

from pathlib import Path

CONFIG_NAME = ".agent-tui.toml"
"""The project's shared agent-tui settings (committed with the repository)."""

LOCAL_CONFIG_NAME = ".agent-tui.local.toml"
"""The project's own-machine settings, kept out of git: where "Always allow" writes rules."""

OWN_DIR = Path(".agent-tui")
"""agent-tui's folder in a project: its commands, skills and agents."""

CLAUDE_DIR = Path(".claude")
"""Claude Code's folder, read the same way (and its settings files for hooks)."""

CLAUDE_SETTINGS = (CLAUDE_DIR / "settings.json", CLAUDE_DIR / "settings.local.json")
"""Claude Code's settings files, for the hooks they hold."""

EXTENSION_BASES = (CLAUDE_DIR, OWN_DIR)
"""Where commands, skills and agents live, lowest precedence first: on a name clash, agent-tui's
own folder wins. The trust hash walks them in this order (changing it changes every hash)."""

EXTENSION_KINDS = ("commands", "skills", "agents")


def extension_dirs(kind: str) -> list[Path]:
    """The folders of one kind (`commands`, `skills`, `agents`), lowest precedence first."""
    return [base / kind for base in EXTENSION_BASES]
