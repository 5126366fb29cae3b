"""A named piece of the system prompt, and which budget component it counts toward."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Component = Literal["system_prompt", "skill_prompts", "pins"]


@dataclass(frozen=True)
class PromptSection:
    """One section of the system prompt, ordered static (cacheable) first."""

    name: str
    """Stable name, e.g. `base`, `rules`, `memories`, `skill:review`, `status`."""
    text: str
    """The section's text as sent."""
    cacheable: bool = True
    """Static sections can carry a cache breakpoint; the per-turn status note cannot."""
    component: Component = "system_prompt"
    """Which budget component the section's tokens count toward."""
