"""Skills the model chooses: a folder holding `SKILL.md` (front matter `name`, `description`)
and any files beside it, in `skills/` of the user config dir always and — in a trusted folder —
`.claude/skills/` and `.agent-tui/skills/` (a later folder's skill wins over an earlier one).

Only each skill's name and description go into the prompt; the model loads a body with the
`skill` tool (extensions/skill_tool.py), the user with `/skill NAME`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.base import frontmatter
from agent_tui.context.safe_read import read_confined
from agent_tui.policy import project_layout
from agent_tui.policy.extension_files import walk
from agent_tui.runtime import paths

MAX_SKILL_BYTES = 32_768
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


@dataclass(frozen=True)
class SkillInfo:
    name: str
    description: str
    path: Path
    """The SKILL.md file."""


@dataclass(frozen=True)
class SkillCatalog:
    skills: dict[str, SkillInfo] = field(default_factory=dict)
    notices: tuple[str, ...] = ()


def skill_dirs(workspace: Path, trusted: bool) -> list[Path]:
    dirs = [paths.config_dir() / "skills"]
    if trusted:
        dirs += [workspace / rel for rel in project_layout.extension_dirs("skills")]
    return dirs


def discover_skills(workspace: Path, trusted: bool) -> SkillCatalog:

    found: dict[str, SkillInfo] = {}
    notices: list[str] = []

    user_dir = paths.config_dir() / "skills"
    for folder in skill_dirs(workspace, trusted):
        # The trust hash's own walker: a project's links are followed only inside the project.
        listed = walk(folder, None if folder == user_dir else workspace)
        for path in (p for p in listed if len(p.relative_to(folder).parts) == 2 and p.name == "SKILL.md"):
            try:
                raw, _size = read_confined(path, MAX_SKILL_BYTES)
            except OSError as exc:
                notices.append(f"{paths.shown(path)}: cannot read ({exc})")
                continue
            parsed = frontmatter.read(raw.decode("utf-8", "replace"))
            notices += [
                f"{paths.shown(path)}:{line}: {why}; the rest is used" for line, why in parsed.problems
            ]
            name = str(parsed.meta.get("name") or path.parent.name).strip()
            if not _NAME.match(name):
                notices.append(f"{paths.shown(path)}: skill name {name!r} is not a plain word; skipped")
                continue
            description = str(parsed.meta.get("description") or "").strip()
            if not description:
                first = next((ln.lstrip("# ").strip() for ln in parsed.body.splitlines() if ln.strip()), "")
                description = first
                notices.append(
                    f"{paths.shown(path)}:1: no `description:` in the front matter; using {first[:40]!r}"
                )
            found[name] = SkillInfo(name, " ".join(description.split())[:300], path)
    return SkillCatalog(found, tuple(notices))


INDEX_SHARE = 0.05
"""Of the effective window, the most the skills' index may take (it is sent in every request)."""
CHARS_PER_TOKEN = 3
"""Low on purpose: short names and numbers tokenise densely."""


def index_text(catalog: SkillCatalog, window: int | None = None) -> str:
    """The prompt section listing the skills: names and descriptions only. In a small window
    (`window`: the effective window) it is held to INDEX_SHARE: the descriptions are shortened
    to an equal share, then names alone, and a last line says why and what was left out (the
    `skill` tool still loads any of them by name)."""
    lines = [
        "# Skills",
        "Skills hold instructions for particular tasks. When a task matches a skill's description, "
        "load its full instructions with the `skill` tool (name) before you start.",
    ]
    skills = list(catalog.skills.values())
    full = [f"- {s.name}: {s.description}" for s in skills]
    room = None if window is None else int(INDEX_SHARE * window * CHARS_PER_TOKEN) - sum(map(len, lines))
    if room is None or sum(len(line) + 1 for line in full) <= room:
        return "\n".join([*lines, *full])
    share = room // max(len(skills), 1) - 4
    listed = [
        f"- {s.name}: {s.description[: share - len(s.name)]}…" if share - len(s.name) > 20 else f"- {s.name}"
        for s in skills
    ]
    kept: list[str] = []
    for line in listed:
        if sum(len(k) + 1 for k in kept) + len(line) > room - 120:
            break
        kept.append(line)
    left = len(skills) - len(kept)
    more = f"{left} more not listed; " if left else ""
    note = f"[Index held to {INDEX_SHARE:.0%} of this small window: descriptions shortened; {more}the skill tool loads any by name]"
    return "\n".join([*lines, *kept, note])
