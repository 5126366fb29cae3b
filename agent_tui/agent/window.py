"""The window a session's requests are measured against, and how it changes.

The reply reserve holds the thinking budget on top of the answer; a provider that reports a
smaller window than configured is believed from then on. Both resize the session's meter; the
session calls them (measuring, and on a context-length error).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from agent_tui.models import reply_reserve
from agent_tui.units import grouped

if TYPE_CHECKING:
    from agent_tui.context.budget import BudgetMeter
    from agent_tui.llm.provider import Provider
    from agent_tui.models import ModelLimits


def reserve_thinking(limits: ModelLimits, provider: Provider, meter: BudgetMeter) -> None:
    """The reply reserve holds the thinking budget on top of the answer (the request's
    max_tokens grows by it), capped so half the window stays for the prompt; the thinking
    blocks the request sends back count in the conversation."""
    window, answer = limits.context_window, limits.max_output_tokens
    provider.max_thinking = max(window // 2 - answer, 0)
    thinking = provider.thinking_reserve
    if answer + thinking != meter.max_output_tokens or thinking != meter.thinking_reserve:
        meter.resize(window, answer + thinking, thinking)
    meter.counts_thinking = provider.takes_thinking_blocks


def learn_window(
    limits: ModelLimits, meter: BudgetMeter, reported: int | None
) -> tuple[ModelLimits, str] | None:
    """The provider's window is smaller than configured: the limits to believe from now on and
    what to tell the user (None when it is not smaller)."""
    if not reported or reported >= limits.context_window:
        return None
    old = limits.context_window
    reserve = min(limits.max_output_tokens, reply_reserve(reported, None, None))
    meter.resize(reported, reserve)
    return replace(limits, context_window=reported, max_output_tokens=reserve), (
        f"The provider's window is {grouped(reported)} tokens, not {grouped(old)}; using "
        f"{grouped(reported)} from now on (set [model] context_window to avoid this). "
        "Compacting and retrying once."
    )
