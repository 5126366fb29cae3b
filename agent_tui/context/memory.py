"""Memories and skills: the user's own text that rides along in every system prompt.

Memories are notes in one Markdown file (`<config dir>/memories.md`) that `remember()` appends to
(the TUI's `/remember`). Skills are Markdown files in `<config dir>/skills/`, each a named
fragment of instructions that is off until activated by name. Both count toward the budget's
`skill_prompts` component and sit in the cacheable part of the prompt, after the base
instructions and project rules, so editing one re-caches only what follows it.

`UserPrompts` re-reads a file only when its modification time or size changed, so asking for
the sections on every step costs a few `stat` calls.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from agent_tui.base.frontmatter import read
from agent_tui.context.prompt_sections import PromptSection
from agent_tui.context.safe_read import read_confined
from agent_tui.runtime import paths

log = logging.getLogger(__name__)

MAX_MEMORY_BYTES = 16_384
MAX_SKILL_BYTES = 32_768
_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def memories_file() -> Path:
    """Where the user's memory notes live."""
    return paths.config_dir() / "memories.md"


def skills_dir() -> Path:
    """The folder of skill files (`NAME.md`)."""
    return paths.config_dir() / "skills"


def remember(text: str, path: Path | None = None) -> Path:
    """Append one note to the memories file (created if missing); returns the file.

    Raises ValueError for an empty note. A multi-line note stays one list item."""
    note = text.strip()
    if not note:
        raise ValueError("nothing to remember: the note is empty")
    path = path or memories_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = note.splitlines()
    item = "- " + lines[0] + "".join(f"\n  {line}" for line in lines[1:]) + "\n"
    existing = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    prefix = "" if not existing or existing.endswith("\n") else "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(prefix + item)
    return path


def read_limited(path: Path, max_bytes: int) -> str:
    """The file's text, cut at `max_bytes` with a marker saying so. Only a regular file is read
    (safe_read.py): a link to /proc, a device or a FIFO is an OSError. These are the user's own
    files, so a link into a dotfiles folder is fine."""

    raw, size = read_confined(path, max_bytes)
    text = raw.decode("utf-8", errors="replace")
    if size > max_bytes:
        text += f"\n[… {size - max_bytes} more bytes not loaded from {path.name} …]"
    return text.strip()


@dataclass(frozen=True)
class Skill:
    """One skill file."""

    name: str
    """The file name without `.md`: what `activate_skill` takes."""
    path: Path
    description: str
    """The front matter's `description:`, else the first line of text (for listings)."""
    text: str
    """The instructions, front matter removed."""


def parse_skill(path: Path) -> Skill:
    """Read one skill file; optional `---` front matter with `description: …` (read as every
    front matter is, frontmatter.py; a line it cannot read is skipped)."""

    doc = read(read_limited(path, MAX_SKILL_BYTES))
    text = doc.body
    first = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.strip()), "")
    described = doc.meta.get("description")
    description = " ".join(str(described).split()) if described not in (None, "", []) else first
    return Skill(path.stem, path, description, text)


def discover_skills(folder: Path | None = None) -> dict[str, Skill]:
    """Every `*.md` in the skills folder by name (unreadable files are logged and skipped)."""
    folder = folder or skills_dir()
    found: dict[str, Skill] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.md")):
        if not _SKILL_NAME.match(path.stem):
            continue
        try:
            found[path.stem] = parse_skill(path)
        except OSError as exc:
            log.warning("cannot read skill %s: %s", path, exc)
    return found


def memory_section(text: str) -> PromptSection:
    return PromptSection(
        "memories", f"# Memories (notes the user asked you to keep)\n{text}", component="skill_prompts"
    )


def skill_section(skill: Skill) -> PromptSection:
    return PromptSection(
        f"skill:{skill.name}", f"# Skill: {skill.name}\n{skill.text}", component="skill_prompts"
    )


def _named_section(name: str) -> Callable[[Path], PromptSection]:
    """A skill's section under the name it was activated by (a folder skill's file is SKILL.md)."""

    def build(path: Path) -> PromptSection:
        return skill_section(replace(parse_skill(path), name=name))

    return build


class UserPrompts:
    """The memory and active-skill sections, re-read when their files change."""

    def __init__(
        self,
        memories: Path | None = None,
        skills: Path | None = None,
        active: Iterable[str] = (),
        *,
        folder_skills: Mapping[str, Path] | None = None,
        index: str | None = None,
    ) -> None:
        self.memories_path = memories or memories_file()
        self.skills_path = skills or skills_dir()
        self.folder_skills = dict(folder_skills or {})
        """Skills the model chooses (`NAME/SKILL.md`, extensions/skills.py): name → file."""
        self._index = PromptSection("skills", index, component="skill_prompts") if index else None
        self._active: list[str] = []
        self._files: dict[Path, tuple[tuple[int, int] | None, PromptSection | None]] = {}
        for name in active:
            try:
                self.activate(name)
            except ValueError as exc:
                log.warning("%s", exc)

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(self._active)

    def available(self) -> dict[str, Skill]:
        found = discover_skills(self.skills_path)
        for name, path in self.folder_skills.items():
            try:
                found[name] = replace(parse_skill(path), name=name)
            except OSError as exc:
                log.warning("cannot read skill %s: %s", path, exc)
        return found

    def _path(self, name: str) -> Path:
        return self.folder_skills.get(name) or self.skills_path / f"{name}.md"

    def activate(self, name: str) -> Skill:
        """Turn a skill on (idempotent). ValueError naming the available ones when unknown."""
        path = self._path(name)
        if name in self.folder_skills and path.is_file():
            if name not in self._active:
                self._active.append(name)
            return replace(parse_skill(path), name=name)
        if not _SKILL_NAME.match(name) or not path.is_file():
            known = ", ".join(self.available()) or "none"
            raise ValueError(f"no skill named {name!r} in {self.skills_path} (available: {known})")
        if name not in self._active:
            self._active.append(name)
        return parse_skill(path)

    def deactivate(self, name: str) -> bool:
        """Turn a skill off; False when it was not on."""
        if name in self._active:
            self._active.remove(name)
            return True
        return False

    def sections(self) -> list[PromptSection]:
        """Memories first (they change least often), then the active skills in activation order."""
        out = []
        memories = self._load(self.memories_path, lambda p: memory_section(read_limited(p, MAX_MEMORY_BYTES)))
        if memories is not None:
            out.append(memories)
        if self._index is not None:
            out.append(self._index)
        for name in self._active:
            section = self._load(self._path(name), _named_section(name))
            if section is not None:
                out.append(section)
        return out

    def _load(self, path: Path, build: Callable[[Path], PromptSection]) -> PromptSection | None:
        try:
            st = path.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        cached = self._files.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        section = None
        if stamp is not None:
            try:
                section = build(path)
            except OSError as exc:
                log.warning("cannot read %s: %s", path, exc)
            if section is not None and not section.text.split("\n", 1)[-1].strip():
                section = None  # an empty file adds nothing, not even a heading
        self._files[path] = (stamp, section)
        return section
