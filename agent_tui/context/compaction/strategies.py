"""The compaction strategies, cheapest first, as one ordered tuple.

The chain runs them in this order, /context lists them and what each could free, the chat line
names them, and the config's `[compaction]` switches are their names: all read `STRATEGIES`.
Those before the one that needs a model run first, each only while the history is over its
target; the model's summary comes next; those after it are the last resort.
tests/test_compaction_strategies_declared.py checks that each has its config switch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .clearing import clear_tool_outputs
from .pruning import prune
from .summarize import estimate_tokens
from .truncation import truncate

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter

    from .result import CompactionPlan, StrategyOutcome

Run = Callable[["list[Message]", "CompactionPlan", "TokenCounter"], "StrategyOutcome"]
Estimate = Callable[["list[Message]", "CompactionPlan", "TokenCounter"], int]


@dataclass(frozen=True)
class Strategy:
    """One way of making a history smaller."""

    name: str
    """Its switch under `[compaction]` (and its name in a result's `strategies`)."""
    label: str
    """What the user reads: progress, the chat line, /context."""
    cost: str
    """What running it costs, as /context says (`no LLM`, `LLM call`…)."""
    needs_model: bool
    """A summariser model writes its result: the chain calls it itself (async, with a fallback)."""
    drops_turns: bool
    """Takes whole messages out of the window, not only tool outputs."""
    run: Run | None
    """The strategy on a history (None for the one that needs a model)."""
    estimate: Estimate
    """Tokens left if it alone ran now, as far as it can go (no model is called)."""


def _as_far_as_it_goes(run: Run) -> Estimate:
    def estimate(messages: list[Message], plan: CompactionPlan, counter: TokenCounter) -> int:
        return run(messages, plan.unbounded(), counter).tokens

    return estimate


STRATEGIES: tuple[Strategy, ...] = (
    Strategy(
        "tool_clearing",
        "tool clearing",
        "no LLM",
        False,
        False,
        clear_tool_outputs,
        _as_far_as_it_goes(clear_tool_outputs),
    ),
    Strategy("pruning", "pruning", "no LLM", False, False, prune, _as_far_as_it_goes(prune)),
    Strategy("summarization", "summary", "LLM call", True, True, None, estimate_tokens),
    Strategy(
        "truncation", "truncation", "drops oldest turns", False, True, truncate, _as_far_as_it_goes(truncate)
    ),
)

LABELS: dict[str, str] = {strategy.name: strategy.label for strategy in STRATEGIES}
"""Strategy name → the words the user reads."""

SUMMARY = next(strategy for strategy in STRATEGIES if strategy.needs_model)
CHEAP = STRATEGIES[: STRATEGIES.index(SUMMARY)]
"""Run first, while the history is over its target."""
LAST_RESORT = STRATEGIES[STRATEGIES.index(SUMMARY) + 1 :]
"""Run when the summary left the history over its target (or there was none)."""
