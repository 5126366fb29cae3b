"""What a request carries for `[model] reasoning_effort` and `thinking_budget_tokens`, per wire format, and what it must not carry.

- OpenAI-compatible: `reasoning_effort` (OpenAI's o-series and gpt-5, DeepSeek, vLLM, OpenRouter);
  a server that does not know it ignores it.
- Anthropic: `thinking: {type: enabled, budget_tokens}`; the API wants `max_tokens` above the
  budget (so the reply keeps its own room) and no thinking when the tool-use turn being continued
  began with an assistant message without its thinking block (a model switch mid-turn, an old session):
  that request goes without thinking rather than failing with 400.
- litellm: `reasoning_effort` or `thinking`, which litellm maps per provider.
A model the price map lists as not reasoning gets nothing, and one notice says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.base.reasoning import ReasoningSettings, tool_turn
from agent_tui.llm import catalog

MIN_BUDGET = 1024
"""Anthropic's smallest thinking budget."""


@dataclass(frozen=True)
class ReasoningRequest:
    """The request's extra body keys and its reply limit with room for the thinking."""

    extra: dict[str, Any]
    max_tokens: int | None
    notice: str | None = None


def supports_reasoning(model: str) -> bool | None:
    """True/False when the price map says; None for a model it does not list (a local one)."""
    info = catalog.entry(model)
    if info is None:
        return None
    return bool(info.get("supports_reasoning"))


def reasoning_request(
    thinking_budget: bool,
    model: str,
    settings: ReasoningSettings,
    max_tokens: int | None,
    max_thinking: int | None = None,
) -> ReasoningRequest:
    """`thinking_budget`: the request's format asks for reasoning as Anthropic's thinking budget
    (llm/wire_format.py says which do). `max_thinking`: the most of the window the thinking budget
    may take (the session keeps half the window for the prompt); a budget cut below the API's
    1 024 turns thinking off."""
    if not settings.enabled:
        return ReasoningRequest({}, max_tokens)
    if supports_reasoning(model) is False:
        return ReasoningRequest(
            {},
            max_tokens,
            f"{model} does not reason (per litellm's model list): reasoning_effort and thinking_budget_tokens are not sent.",
        )
    budget = settings.thinking_budget()
    if thinking_budget:
        if budget <= 0:
            return ReasoningRequest({}, max_tokens)
        if max_thinking is not None and budget > max_thinking:
            if max_thinking < MIN_BUDGET:
                return ReasoningRequest(
                    {}, max_tokens, f"The window of {model} is too small for extended thinking: not sent."
                )
            budget = max_thinking
        limit = (max_tokens or 0) + budget
        return ReasoningRequest({"thinking": {"type": "enabled", "budget_tokens": budget}}, limit)
    if settings.effort is None:
        return ReasoningRequest(
            {}, max_tokens, f"thinking_budget_tokens applies to Anthropic models only, not {model}."
        )
    return ReasoningRequest({"reasoning_effort": settings.effort}, max_tokens)


def continues_without_thinking(messages: list[dict[str, Any]]) -> bool:
    """True when the request continues a tool-use turn whose first assistant message has no
    thinking blocks: Anthropic rejects thinking there."""
    turn = tool_turn(messages, _role)
    return bool(turn) and not messages[turn[0]].get("thinking_blocks")


def _role(message: dict[str, Any]) -> str:
    return str(message.get("role"))
