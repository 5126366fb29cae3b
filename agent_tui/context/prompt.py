"""The system prompt, laid out cacheable-first.

Sections are ordered static → dynamic so a provider's prompt cache can hold the long stable prefix
(base instructions, project rules, memories, skills) while the per-turn status note changes freely
after it. `build()` returns the text and where the cacheable prefix ends (the breakpoints): one
after the stable tier (base + rules) when more cacheable text follows, one at the end of all
cacheable text. Editing a memory then re-caches only the tail, never the base instructions.

A builder failure must never break a turn: `build()` falls back to plain concatenation and says
so in `BuiltPrompt.warning`, which the assembler turns into one notice for the user.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.context.prompt_sections import PromptSection
from agent_tui.context.safe_read import UnsafeFile, read_confined

log = logging.getLogger(__name__)

RULES_FILES = ("AGENTS.md", "AGENT.md", "CLAUDE.md")
SEPARATOR = "\n\n"
STABLE_SECTIONS = frozenset({"base", "rules"})
"""Sections that change only when the user edits a file by hand: the first cache tier."""
MAX_SYSTEM_BREAKPOINTS = 2
"""Of Anthropic's 4 breakpoints, the system prompt takes at most 2; the messages get the rest."""


@dataclass(frozen=True)
class BuiltPrompt:
    text: str
    """The whole system prompt (what providers without explicit caching get)."""
    sections: tuple[PromptSection, ...]
    """The sections it was built from, in order."""
    breakpoints: tuple[int, ...]
    """Character offsets in `text` after which a cache breakpoint goes (end of each cache tier)."""
    blocks: tuple[tuple[str, bool], ...]
    """The text split at the breakpoints: (text, ends_with_breakpoint); joined they are `text`."""
    dynamic_text: str = ""
    """The non-cacheable sections alone (the status note), for providers that place them after
    the cached prefix instead of inside the system prompt."""
    warning: str | None = None
    """Set when the builder failed and this is the plain-concatenation fallback."""

    @property
    def cached_blocks(self) -> tuple[str, ...]:
        """The cacheable text, one entry per cache tier (each ends with a breakpoint)."""
        return tuple(text for text, mark in self.blocks if mark)


class PromptBuilder:
    """Orders sections static → dynamic and joins them; never fails a turn."""

    def __init__(self, stable: frozenset[str] = STABLE_SECTIONS) -> None:
        self.stable = stable

    def build(self, sections: Sequence[PromptSection]) -> BuiltPrompt:
        try:
            return self._build(sections)
        except Exception as exc:
            log.exception("prompt builder failed; falling back to plain concatenation")
            text = SEPARATOR.join(str(s.text) for s in sections if s.text)
            warning = (
                f"The prompt builder failed ({exc}); the system prompt is sent as plain "
                "text without cache breakpoints (details in the log)."
            )
            return BuiltPrompt(text, tuple(sections), (), ((text, False),), warning=warning)

    def _build(self, sections: Sequence[PromptSection]) -> BuiltPrompt:
        names = [s.name for s in sections]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"two prompt sections are named {duplicates[0]!r}")
        for section in sections:
            if not isinstance(section.text, str):
                raise TypeError(f"section {section.name!r} has no text")
        static = [s for s in sections if s.text and s.cacheable]
        dynamic = [s for s in sections if s.text and not s.cacheable]
        # Tiers: the stable sections first (in their given order), then the other cacheable ones.
        tiers = [
            [s for s in static if s.name in self.stable],
            [s for s in static if s.name not in self.stable],
        ]
        tiers = [t for t in tiers if t][:MAX_SYSTEM_BREAKPOINTS]
        blocks: list[tuple[str, bool]] = []
        offset = 0
        breakpoints: list[int] = []
        for tier in tiers:
            text = (SEPARATOR if blocks else "") + SEPARATOR.join(s.text for s in tier)
            blocks.append((text, True))
            offset += len(text)
            breakpoints.append(offset)
        dynamic_text = SEPARATOR.join(s.text for s in dynamic)
        if dynamic_text:
            blocks.append(((SEPARATOR if blocks else "") + dynamic_text, False))
        ordered = tuple(s for tier in tiers for s in tier) + tuple(dynamic)
        text = "".join(b for b, _ in blocks)
        return BuiltPrompt(text, ordered, tuple(breakpoints), tuple(blocks), dynamic_text)


def find_rules_file(workspace: Path) -> Path | None:
    """`AGENTS.md`, else `AGENT.md`, else `CLAUDE.md` in the workspace (whatever it is: a link,
    FIFO or folder by that name is found here and refused by `load_rules`, which says so)."""
    for name in RULES_FILES:
        path = workspace / name
        if os.path.lexists(path):
            return path
    return None


def load_rules(workspace: Path, max_bytes: int = 32_768) -> tuple[PromptSection | None, str | None]:
    """The rules section, and a one-line problem for the user when the file was refused or
    unreadable (read like the file tools read: regular, inside the workspace, capped)."""

    path = find_rules_file(workspace)
    if path is None:
        return None, None
    try:
        data, size = read_confined(path, max_bytes, inside=workspace)
    except UnsafeFile as exc:
        log.warning("rules file refused: %s", exc)
        return None, f"Project rules ignored: {exc}."
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None, f"Project rules ignored: cannot read {path.name} ({exc.strerror or exc})."
    text = data.decode("utf-8", errors="replace")
    if size > max_bytes:
        text += f"\n[… {size - max_bytes} more bytes not loaded from {path.name} …]"
    return PromptSection("rules", f"# Project rules ({path.name})\n{text.strip()}"), None


def status_note(used_fraction: float) -> PromptSection:
    """The dynamic note added at ≥ warn_at."""
    pct = round(used_fraction * 100)
    return PromptSection(
        "status",
        f"[Context: {pct}% used. You can call compact_context to free space before continuing "
        "with large operations.]",
        cacheable=False,
    )
