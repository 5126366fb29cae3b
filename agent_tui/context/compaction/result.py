"""The values compaction hands back: what was planned, what each strategy did, what came out.

Kept apart from the strategies so the loop, the UI and the tests can import the result types
without pulling in any strategy code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_tui.base.units import short_tokens

from .record import CompactionRecord

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.config import CompactionSettings

    from .record import CompactionRecord

SUMMARY_RESERVE_MIN = 512
SUMMARY_RESERVE_MAX = 4096
SUMMARY_REPLY_FLOOR = 64
"""The smallest reply limit a summariser is given, however small the budget."""


format_tokens = short_tokens
"""182 431 → `182k`, 8 240 → `8.2k`: the same figures the meter shows."""


def _distinct(before: int, after: int) -> tuple[str, str]:
    """Both figures as short as they can be while still showing they differ: `3k → 3k` for
    3 050 → 2 960 would hide the change, so one decimal, then the exact counts."""
    for form in (format_tokens, lambda n: f"{n / 1000:.1f}k" if n >= 1000 else str(n)):
        pair = (form(before), form(after))
        if pair[0] != pair[1] or before == after:
            return pair
    return f"{before:,}".replace(",", " "), f"{after:,}".replace(",", " ")


@dataclass(frozen=True)
class CompactionPlan:
    """The numbers one compaction works to, computed once from settings and the budget."""

    target_tokens: int
    """Target for the whole request (fixed part + conversation)."""
    fixed_tokens: int
    """System prompt + tool descriptions: counted against the target, never compacted."""
    protected_tokens: int
    """Newest tool outputs up to this many tokens are never cleared or condensed."""
    retain_last_turns: int
    """Whole turns summarisation keeps verbatim when they fit."""
    summary_max_tokens: int
    """Reply limit for the summariser, and the room reserved for the summary."""
    summarizer_window: int | None = None
    """The summariser's own input window; larger histories are summarised in chunks."""
    force: bool = False
    """Compact even when already under the target (`/compact`)."""
    footer_tokens: int = 0
    """Room kept for the line naming the replaced transcript range (added after a strategy)."""
    keep_user_tokens: int = 0
    """The newest user messages up to this many tokens stay verbatim in the retain block."""

    @property
    def conversation_budget(self) -> int:
        """What the conversation must come under: the target minus the fixed part (and the
        room kept for the range line)."""
        return max(self.target_tokens - self.fixed_tokens - self.footer_tokens, 0)

    @classmethod
    def build(
        cls,
        settings: CompactionSettings,
        *,
        target_tokens: int,
        fixed_tokens: int,
        summarizer_window: int | None = None,
        force: bool = False,
        footer_tokens: int = 0,
        keep_user_tokens: int = 0,
    ) -> CompactionPlan:
        budget = max(target_tokens - fixed_tokens, 0)
        # The brief measures the protected window against the whole target, but it can never be
        # allowed to hold more than the conversation may: then nothing would ever be cleared.
        protected = min(int(settings.protected_ratio * target_tokens), budget)
        summary = min(max(budget // 8, SUMMARY_RESERVE_MIN), SUMMARY_RESERVE_MAX)
        # In a small budget the floor would ask for a summary that cannot fit (a model that fills
        # its reply limit then had its summary dropped by truncation): never past half of it.
        summary = min(summary, max(budget // 2, SUMMARY_REPLY_FLOOR))
        return cls(
            target_tokens=target_tokens,
            fixed_tokens=fixed_tokens,
            protected_tokens=max(protected, 0),
            retain_last_turns=max(settings.retain_last_turns, 0),
            summary_max_tokens=summary,
            summarizer_window=summarizer_window,
            force=force,
            footer_tokens=footer_tokens,
            keep_user_tokens=max(keep_user_tokens, 0),
        )

    def unbounded(self) -> CompactionPlan:
        """The same plan with a zero budget: each strategy goes as far as it can (for estimates
        and for a forced compaction with no summariser)."""
        return CompactionPlan(
            target_tokens=self.fixed_tokens,
            fixed_tokens=self.fixed_tokens,
            protected_tokens=self.protected_tokens,
            retain_last_turns=self.retain_last_turns,
            summary_max_tokens=self.summary_max_tokens,
            summarizer_window=self.summarizer_window,
            force=self.force,
            keep_user_tokens=self.keep_user_tokens,
        )


@dataclass(frozen=True)
class StrategyOutcome:
    """What one strategy made of the conversation."""

    messages: list[Message]
    """The conversation after the strategy (the input list itself when nothing changed)."""
    changed: int = 0
    """Messages replaced, condensed, dropped or added; 0 means the strategy did nothing."""
    tokens: int = 0
    """Conversation tokens after the strategy."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Things the result's reason should mention (a failed summariser, a fallback used)."""
    model: str | None = None
    """The model that wrote the summary, for summarisation."""


@dataclass(frozen=True)
class CompactResult:
    """What a compaction did, for the chat line, the event stream and the tests."""

    tokens_before: int
    """Whole request (fixed + conversation) before."""
    tokens_after: int
    """Whole request after (equal to before when not applied)."""
    messages_before: int
    messages_after: int
    strategies: tuple[str, ...]
    """Strategies that ran and changed something, in order (`tool_clearing`, `summarization`…)."""
    duration: float
    """Seconds, summariser calls included."""
    summary_model: str | None
    """The model that wrote the summary; None when no summary was made."""
    reached_target: bool
    """The whole request is now at or under `target_tokens`."""
    reason: str
    """Why the target was not reached, or why the compaction was rejected; empty otherwise."""
    applied: bool
    """False when the history was left as it was (nothing to do, or it would not shrink)."""
    target_tokens: int = 0
    """The target the compaction worked to (whole request)."""
    fixed_tokens: int = 0
    """System prompt + tool descriptions, included in the token figures above."""
    replaced: tuple[int, int] | None = None
    """Transcript messages (first, last) taken out of the window, readable as `m_<a>-<b>`."""
    labels: tuple[str, ...] = ()
    """`strategies` as the user reads them (`summary`), given by the chain, which knows the
    strategies (compaction/strategies.py); empty: the names are shown."""
    instructions: str = ""
    """What `/compact <instructions>` (or compact_context) asked the summary to follow."""
    unused: str = ""
    """Why those instructions went unused (no summary was made); empty when they were used."""
    record: CompactionRecord | None = None
    """What each strategy cleared, condensed, summarised or dropped, by ref (record.py)."""

    @property
    def freed(self) -> int:
        return max(self.tokens_before - self.tokens_after, 0)

    def describe(self) -> str:
        """The chat line: `Compacted 182k → 41k tokens (tool clearing, summary; 900 → 40 messages) in 3.2 s`."""
        if not self.applied:
            return f"Compaction skipped: {self.reason or 'nothing to compact'}{self._instructions_note()}"
        labels = ", ".join(self.labels or self.strategies)
        before, after = _distinct(self.tokens_before, self.tokens_after)
        messages = f"; {self.messages_before} → {self.messages_after} messages"
        took = f"{self.duration:.1f} s" if self.duration >= 1 else "under a second"
        line = f"Compacted {before} → {after} tokens ({labels}{messages}) in {took}"
        if not self.reached_target:
            line += f"; still over the {format_tokens(self.target_tokens)} target"
            if self.reason:
                line += f": {self.reason}"
        return line + self._instructions_note()

    def _instructions_note(self) -> str:
        """Whether the summary followed the user's instructions: never left unsaid."""
        if not self.instructions:
            return ""
        if self.unused:
            return f"; your instructions were not used: {self.unused}"
        return "; the summary follows your instructions"

    def to_json(self) -> dict[str, object]:
        return {
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "messages_before": self.messages_before,
            "messages_after": self.messages_after,
            "strategies": list(self.strategies),
            "labels": list(self.labels),
            "duration": round(self.duration, 3),
            "summary_model": self.summary_model,
            "reached_target": self.reached_target,
            "reason": self.reason,
            "applied": self.applied,
            "target_tokens": self.target_tokens,
            "fixed_tokens": self.fixed_tokens,
            "replaced": list(self.replaced) if self.replaced else None,
            "instructions": self.instructions,
            "instructions_unused": self.unused,
            "record": self.record.to_json() if self.record is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CompactResult:
        """A stored result (compaction_records keeps `to_json`'s form): a resumed chat's line."""

        replaced = data.get("replaced")
        record = data.get("record")
        return cls(
            int(data["tokens_before"]),
            int(data["tokens_after"]),
            int(data["messages_before"]),
            int(data["messages_after"]),
            tuple(data.get("strategies") or ()),
            float(data.get("duration") or 0.0),
            data.get("summary_model"),
            bool(data.get("reached_target", True)),
            str(data.get("reason") or ""),
            bool(data.get("applied", True)),
            int(data.get("target_tokens") or 0),
            int(data.get("fixed_tokens") or 0),
            (int(replaced[0]), int(replaced[1])) if replaced else None,
            instructions=str(data.get("instructions") or ""),
            unused=str(data.get("instructions_unused") or ""),
            record=CompactionRecord.from_json(record) if isinstance(record, dict) else None,
        )
