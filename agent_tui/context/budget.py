"""The context budget: how full the window is, and with what.

`ContextBudget` is a value: components in tokens, the reserve, the thresholds, and the questions
the loop asks of them. It knows nothing of colours or widgets. `BudgetMeter` measures one,
incrementally (only new messages are counted) and calibrated against the provider's reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.base.reasoning import tool_turn
from agent_tui.base.tokens import REPLY_PRIMING, Calibration, ConversationTally, TokenCounter

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.context.prompt_sections import PromptSection

THINKING_BLOCK_OVERHEAD = 4
"""A thinking block's type and field names."""
EXACT_FROM = 0.5
"""Share of the window from which a lazy counter must count with tiktoken: below it the
heuristic (which can be ~30% low on code) cannot reach the first threshold (`warn_at`, 80%)."""
COMPONENTS = ("system_prompt", "skill_prompts", "tool_descriptions", "pins", "conversation")


@dataclass(frozen=True)
class ContextBudget:
    """Where the window goes. All figures in tokens."""

    total: int
    """The model's whole context window."""
    max_output_tokens: int
    """Reserved for the reply."""
    system_prompt: int = 0
    """Base instructions, project rules, the status note."""
    skill_prompts: int = 0
    """Memories and active skill fragments."""
    tool_descriptions: int = 0
    """Schemas of the tools offered this step."""
    pins: int = 0
    """The pins' section: sent in every request, beyond compaction's reach."""
    conversation: int = 0
    """Every message after the system prompt."""
    pin_budget: int = 0
    """What all pins together may take ([compaction] pin_budget_tokens; 0: not known here)."""
    warn_at: float = 0.80
    compact_trigger: float = 0.95
    hard_block: float = 0.98
    calibrated: bool = False
    """True once a provider report anchors the figures."""
    cached: int = 0
    """Prompt tokens the provider served from its cache on the last call."""
    thinking_reserve: int = 0
    """Of `max_output_tokens`, what the model may spend thinking (Anthropic's thinking budget)."""
    reasoning: int = 0
    """Of `conversation`, the thinking blocks this request sends back (Anthropic, within the
    tool-use turn in progress; other reasoning is never sent)."""

    @property
    def effective_window(self) -> int:
        return max(self.total - self.max_output_tokens, 1)

    @property
    def used(self) -> int:
        return self.fixed + self.conversation

    @property
    def fixed(self) -> int:
        """What compaction cannot shrink: everything but the conversation."""
        return self.system_prompt + self.skill_prompts + self.tool_descriptions + self.pins

    @property
    def remaining(self) -> int:
        return self.effective_window - self.used

    @property
    def used_fraction(self) -> float:
        return self.used / self.effective_window

    @property
    def should_warn(self) -> bool:
        return self.used_fraction >= self.warn_at

    @property
    def should_compact(self) -> bool:
        return self.used_fraction >= self.compact_trigger

    @property
    def is_blocked(self) -> bool:
        return self.used_fraction >= self.hard_block

    @property
    def exceeds(self) -> bool:
        return self.used > self.effective_window

    def components(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COMPONENTS}

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "max_output_tokens": self.max_output_tokens,
            "effective_window": self.effective_window,
            **self.components(),
            "used": self.used,
            "remaining": self.remaining,
            "used_fraction": round(self.used_fraction, 4),
            "calibrated": self.calibrated,
            "cached": self.cached,
            "thinking_reserve": self.thinking_reserve,
            "reasoning": self.reasoning,
            "pin_budget": self.pin_budget,
            "warn_at": self.warn_at,
            "compact_trigger": self.compact_trigger,
            "hard_block": self.hard_block,
        }


class BudgetMeter:
    """Measures budgets for one model window, reusing every count it has made before."""

    def __init__(
        self,
        counter: TokenCounter,
        total: int,
        max_output_tokens: int,
        *,
        warn_at: float = 0.80,
        compact_trigger: float = 0.95,
        hard_block: float = 0.98,
    ) -> None:
        self.counter = counter
        self.total = total
        self.max_output_tokens = max_output_tokens
        self.thresholds: dict[str, float] = {
            "warn_at": warn_at,
            "compact_trigger": compact_trigger,
            "hard_block": hard_block,
        }
        self.tally = ConversationTally(counter)
        self.calibration = Calibration()
        self._generation = counter.generation
        """The counter's generation the calibration's estimates were made in."""
        self._last_inputs: (
            tuple[tuple[Message, ...], Sequence[PromptSection], Sequence[dict[str, Any]]] | None
        ) = None
        """What the last measure counted, to count it again exactly when the counter switches."""
        self.last_raw_estimate = 0
        self.last_cached = 0
        self.thinking_reserve = 0
        """Of the reply reserve, the thinking budget (the session keeps it in step with the provider)."""
        self.counts_thinking = False
        """The provider gets the tool-use turn's thinking blocks back (Anthropic): count them."""
        self.last_reasoning = 0
        self.pin_budget = 0
        """What all pins together may take in this window (the session keeps it in step), carried
        by every budget measured: built with it, not copied with it after."""
        self.seed_ratio: float | None = None
        """A ratio learned before this meter's first report (llm/preflight.py's cache): every
        fresh calibration starts from it once the counter counts exactly."""

    def seed(self, ratio: float | None) -> None:
        self.seed_ratio = ratio
        self._reseed()

    def restart_from(self, ratio: float) -> None:
        """Before any call of this meter: start from `ratio` instead (a resumed session's own,
        which replaces the model's cached ratio the meter was seeded with)."""
        self.calibration = Calibration()
        self.seed(ratio)

    def _reseed(self) -> None:
        if self.seed_ratio is not None and not self.counter.provisional:
            self.calibration.seed(self.seed_ratio)

    def raw_parts(
        self,
        conversation: Sequence[Message],
        sections: Sequence[PromptSection] = (),
        tools: Sequence[dict[str, Any]] = (),
    ) -> dict[str, int]:
        """Uncalibrated tiktoken (or heuristic) counts per component."""
        if self.counter.current_generation() != self._generation:
            # Estimates switched from the heuristic to tiktoken: ratios learned on the old ones
            # would scale the new ones wrongly, so calibration starts over.
            self._generation = self.counter.generation
            self.calibration = Calibration()
            self._reseed()
        parts = {"system_prompt": 0, "skill_prompts": 0, "pins": 0}
        if sections:
            parts["system_prompt"] = 4  # the system message's own overhead
        for section in sections:
            parts[section.component] += self.counter.count_cached_text(section.text)
        parts["tool_descriptions"] = self.counter.count_tools(tools)
        self.last_reasoning = sent_thinking(self.counter, conversation) if self.counts_thinking else 0
        parts["conversation"] = self.tally.total(conversation) + REPLY_PRIMING + self.last_reasoning
        return parts

    def measure(
        self,
        conversation: Sequence[Message],
        sections: Sequence[PromptSection] = (),
        tools: Sequence[dict[str, Any]] = (),
    ) -> ContextBudget:
        """Fill every component; calibrated against the last provider report when there is one.
        A lazy counter's heuristic figure is used only far from every threshold; from
        EXACT_FROM of the window on, tiktoken is loaded (or waited for) and the count redone."""
        parts = self.raw_parts(conversation, sections, tools)
        if self.counter.provisional and self._fraction(sum(parts.values()), conversation) >= EXACT_FROM:
            self.counter.wait_exact()
            parts = self.raw_parts(conversation, sections, tools)
        raw = sum(parts.values())
        self.last_raw_estimate = raw
        self._last_inputs = (tuple(conversation), sections, tools)
        calibrated_total = self.calibration.apply(raw, conversation)
        ratio = self.calibration.ratio
        fixed = {k: round(v * ratio) for k, v in parts.items() if k != "conversation"}
        conversation_tokens = max(0, calibrated_total - sum(fixed.values()))
        return ContextBudget(
            total=self.total,
            max_output_tokens=self.max_output_tokens,
            conversation=conversation_tokens,
            calibrated=self.calibration.calls > 0,
            cached=self.last_cached,
            thinking_reserve=self.thinking_reserve,
            reasoning=min(round(self.last_reasoning * ratio), conversation_tokens),
            pin_budget=self.pin_budget,
            **fixed,
            warn_at=self.thresholds["warn_at"],
            compact_trigger=self.thresholds["compact_trigger"],
            hard_block=self.thresholds["hard_block"],
        )

    def _fraction(self, raw: int, conversation: Sequence[Message]) -> float:
        window = self.total - self.max_output_tokens
        return self.calibration.apply(raw, conversation) / window if window > 0 else 1.0

    def record_usage(self, prompt_tokens: int, conversation: Sequence[Message], cached: int = 0) -> None:
        """After a call: the provider's figure for the request last measured. A lazy counter that
        estimated that request counts it again with tiktoken when the figure is past EXACT_FROM
        (or when tiktoken arrived meanwhile), so the anchor the next measures build on is exact."""
        window = self.total - self.max_output_tokens
        if self.counter.provisional and window > 0 and prompt_tokens >= EXACT_FROM * window:
            self.counter.wait_exact()
        if self.counter.current_generation() != self._generation:
            self._generation = self.counter.generation
            self.calibration = Calibration()  # ratios learned on the estimates do not apply
            self._reseed()
            if self._last_inputs is None:
                return
            self.last_raw_estimate = sum(self.raw_parts(*self._last_inputs).values())
        self.calibration.record(prompt_tokens, self.last_raw_estimate, conversation)
        self.last_cached = cached

    def resize(self, total: int, max_output_tokens: int, thinking: int | None = None) -> None:
        """The window turned out different from what was configured (the provider said so), or
        the thinking budget changed (`thinking`: its share of `max_output_tokens`)."""
        self.total = total
        self.max_output_tokens = max_output_tokens
        if thinking is not None:
            self.thinking_reserve = thinking

    def history_rewritten(self) -> None:
        """After compaction: never reuse an anchor or a tally from the old history."""
        self.calibration.invalidate()
        self.tally = ConversationTally(self.counter)


def sent_thinking(counter: TokenCounter, conversation: Sequence[Message]) -> int:
    """Tokens of the thinking blocks a request sends back: those of the tool-use turn it
    continues (the API counts them as input; older ones it drops)."""
    total = 0
    for index in tool_turn(conversation, _role):
        reasoning = conversation[index].reasoning
        for block in reasoning.blocks if reasoning is not None else ():
            total += THINKING_BLOCK_OVERHEAD + counter.count_cached_text(
                block.thinking + block.signature + block.data
            )
    return total


def _role(message: Message) -> str:
    return message.role
