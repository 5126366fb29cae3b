"""The system prompt, laid out cacheable-first.

Sections are ordered static → dynamic so a provider's prompt cache can hold the long stable prefix
(base instructions, project rules, memories, skills) while the per-turn status note changes freely
after it. `build()` returns the text and where the cacheable prefix ends (the breakpoints).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from agent_tui.context.prompt_sections import PromptSection

log = logging.getLogger(__name__)

RULES_FILES = ("AGENTS.md", "AGENT.md", "CLAUDE.md")
SEPARATOR = "\n\n"


@dataclass(frozen=True)
class BuiltPrompt:
    text: str
    """The whole system prompt."""
    sections: tuple[PromptSection, ...]
    """The sections it was built from, in order."""
    breakpoints: tuple[int, ...]
    """Character offsets in `text` after which a cache breakpoint may go (end of each run of
    cacheable sections)."""
    blocks: tuple[tuple[str, bool], ...]
    """The text split at the breakpoints: (text, ends_with_breakpoint)."""


class PromptBuilder:
    """Orders sections static → dynamic and joins them; never fails a turn."""

    def build(self, sections: Sequence[PromptSection]) -> BuiltPrompt:
        try:
            return self._build(sections)
        except Exception:  # noqa: BLE001 - a builder bug must degrade, not break the turn
            log.exception("prompt builder failed; falling back to plain concatenation")
            text = SEPARATOR.join(s.text for s in sections if s.text)
            return BuiltPrompt(text, tuple(sections), (), ((text, False),))

    def _build(self, sections: Sequence[PromptSection]) -> BuiltPrompt:
        ordered = [s for s in sections if s.text and s.cacheable]
        ordered += [s for s in sections if s.text and not s.cacheable]
        blocks: list[tuple[str, bool]] = []
        static = SEPARATOR.join(s.text for s in ordered if s.cacheable)
        dynamic = SEPARATOR.join(s.text for s in ordered if not s.cacheable)
        if static:
            blocks.append((static, True))
        if dynamic:
            blocks.append(((SEPARATOR if static else "") + dynamic, False))
        text = "".join(b for b, _ in blocks)
        breakpoints = (len(static),) if static else ()
        return BuiltPrompt(text, tuple(ordered), breakpoints, tuple(blocks))


def find_rules_file(workspace: Path) -> Path | None:
    """`AGENTS.md`, else `AGENT.md`, else `CLAUDE.md` in the workspace."""
    for name in RULES_FILES:
        path = workspace / name
        if path.is_file():
            return path
    return None


def rules_section(workspace: Path, max_bytes: int = 32_768) -> PromptSection | None:
    path = find_rules_file(workspace)
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:max_bytes]
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
    return PromptSection("rules", f"# Project rules ({path.name})\n{text.strip()}")


def status_note(used_fraction: float) -> PromptSection:
    """The dynamic note added at ≥ warn_at."""
    pct = round(used_fraction * 100)
    return PromptSection(
        "status",
        f"[Context: {pct}% used. You can call compact_context to free space before continuing "
        "with large operations.]",
        cacheable=False,
    )
