"""Short human figures for the meter and the chat: `117k`, `1 204`, `48 KB`, `2.1 s`, `3 min`."""

from __future__ import annotations

import re

from agent_tui.base.units import grouped, human_size, lines, seconds, short_tokens

_HAS_SECONDS = re.compile(r"\d(?:\.\d+)? ?(?:ms|s)\b")


# One way to write counts and sizes across the UI, the tools and the CLI (agent_tui/base/units.py).
count = grouped
line_count = lines
size = human_size
tokens = short_tokens


def duration(value: float) -> str:
    if value < 10:
        return seconds(value)
    if value < 120:
        return f"{round(value)} s"
    return f"{round(value / 60)} min"


def age(seconds: float) -> str:
    """How long ago: `just now`, `5 min`, `3 h`, `2 d`."""
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} d"


def with_duration(summary: str, seconds: float | None) -> str:
    """A tool's summary plus how long it ran, unless the tool already said so."""
    if seconds is None or _HAS_SECONDS.search(summary):
        return summary
    return " · ".join(part for part in (summary, duration(seconds)) if part)
