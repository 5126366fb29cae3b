"""The iteration prompt's token allocation, and cutting text to a number of tokens.

Every iteration's prompt is rebuilt from the goal, the summary and the raw window, so its size
must not depend on how many iterations have run. The allocation fixes it: goal 1 000, summary
`[loop] max_summary_tokens` (2 000), raw iterations 30 000, instructions and state 500 tokens.
When the model's window cannot hold that with room to work, every share shrinks in proportion.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter

GOAL_TOKENS = 1000
RAW_TOKENS = 30_000
INSTRUCTION_TOKENS = 500
PROMPT_SHARE = 0.5
"""Share of the window left after the system prompt and tool schemas that the iteration prompt
may take; the rest is the iteration's room for tool calls and their results."""
INSTRUCTION_FLOOR = 200
"""Below this the loop's own rules (how to report progress and completion) would be cut: the
instructions keep this much and the other shares shrink a little more instead."""


@dataclass(frozen=True)
class Allocation:
    """Tokens each part of the iteration prompt may take."""

    goal: int
    """The goal, with its heading."""
    summary: int
    """The running summary, with its label."""
    raw: int
    """The raw window: every iteration not yet in the summary."""
    instructions: int
    """The heading line, the current state and the instructions."""
    scale: float
    """1.0, or the factor the goal, summary and raw shares were scaled by to fit the window."""
    room: int
    """Tokens the whole prompt may take in this window (before scaling was needed or not)."""

    @property
    def total(self) -> int:
        return self.goal + self.summary + self.raw + self.instructions

    def to_json(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "summary": self.summary,
            "raw": self.raw,
            "instructions": self.instructions,
            "total": self.total,
            "scale": round(self.scale, 4),
            "room": self.room,
        }

    def describe(self) -> str:
        scaled = "" if self.scale >= 1 else f", scaled ×{self.scale:.2f} to the window"
        return (
            f"goal {self.goal:,} · summary {self.summary:,} · raw iterations {self.raw:,} · "
            f"instructions {self.instructions:,} tokens{scaled}"
        )


def plan(effective_window: int, fixed_tokens: int, summary_tokens: int = 2000) -> Allocation:
    """The allocation for a window: the base shares, or all of them scaled to fit."""
    base = {
        "goal": GOAL_TOKENS,
        "summary": summary_tokens,
        "raw": RAW_TOKENS,
        "instructions": INSTRUCTION_TOKENS,
    }
    room = max(0, int((effective_window - fixed_tokens) * PROMPT_SHARE))
    total = sum(base.values())
    scale = min(1.0, room / total)
    shares = {k: int(v * scale) for k, v in base.items()}
    if shares["instructions"] < INSTRUCTION_FLOOR:
        shares["instructions"] = min(INSTRUCTION_FLOOR, room)
        scale = min(scale, (room - shares["instructions"]) / (total - INSTRUCTION_TOKENS))
        for key in ("goal", "summary", "raw"):
            shares[key] = int(base[key] * scale)
    return Allocation(scale=scale, room=room, **shares)


def clip_tokens(text: str, limit: int, counter: TokenCounter, note: str = "") -> str:
    """`text` if it fits in `limit` tokens, else its head and tail around a cut marker (which
    carries `note`, e.g. where the whole text lives) that fit. Never more than `limit`."""
    if counter.count_text(text) <= limit:
        return text
    marker = f"\n[… cut to fit {limit:,} tokens{'; ' + note if note else ''} …]\n"

    def build(chars: int) -> str:
        head = chars * 3 // 5
        return text[:head] + marker + (text[len(text) - (chars - head) :] if chars > head else "")

    lo, hi = 0, len(text)
    while lo < hi:  # the longest cut that still fits
        mid = (lo + hi + 1) // 2
        if counter.count_text(build(mid)) <= limit:
            lo = mid
        else:
            hi = mid - 1
    best = build(lo)
    if counter.count_text(best) <= limit:
        return best
    # Not even the marker fits: the bare head of the marker, then nothing.
    lo, hi = 0, len(marker)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count_text(marker[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return marker[:lo]
