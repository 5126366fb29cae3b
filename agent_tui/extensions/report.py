"""One place to see what extends this workspace: every hook, custom command and skill with the
file it came from, and what an untrusted folder holds back. `/hooks`, `/help` and
`agent-tui config show` print these lines."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.extensions.commands import discover
from agent_tui.extensions.skills import discover_skills
from agent_tui.hooks.sources import load_hooks
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.extensions.skills import SkillCatalog
    from agent_tui.hooks.sources import HookSet


def hook_lines(hooks: HookSet | None) -> list[str]:
    if hooks is None:
        return ["no hooks configured (docs/extending.md)"]
    lines = []
    for h in hooks.hooks:
        matcher = f" [{h.matcher}]" if h.matcher not in ("", "*") else ""
        lines.append(f"{h.event}{matcher}: {h.command}  (timeout {h.timeout:g} s; {h.source})")
    lines += [f"not run (folder not trusted): {w}" for w in hooks.withheld]
    return lines or ["no hooks configured (docs/extending.md)"]


def skill_lines(skills: SkillCatalog) -> list[str]:

    return [f"{s.name}: {s.description}  ({paths.shown(s.path)})" for s in skills.skills.values()]


def command_lines(workspace: Path, trusted: bool) -> list[str]:

    return [
        f"/{c.name}: {c.description}  ({c.source})" for c in discover(workspace, trusted).commands.values()
    ]


def everything(workspace: Path, trusted: bool) -> dict[str, list[str]]:
    """Hooks, commands and skills, read afresh (for `config show`)."""

    return {
        "hooks": hook_lines(load_hooks(workspace, trusted=trusted)),
        "commands": command_lines(workspace, trusted),
        "skills": skill_lines(discover_skills(workspace, trusted)),
    }
