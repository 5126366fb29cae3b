"""What one reply cost: the prices the config declares, else the ones known for the model, plus
the provider's web searches; None when neither knows them (the session total stays unknown)."""

from __future__ import annotations

from agent_tui.base.messages import TokenUsage
from agent_tui.config.schema import ModelSettings
from agent_tui.llm.cost import cost_of, declared_prices, prices_for, search_price


def reply_cost(declared: ModelSettings, model: str, usage: TokenUsage) -> float | None:
    prices = declared_prices(declared.input_price_per_mtok, declared.output_price_per_mtok)
    tokens = prices or prices_for(model, declared.api_base)
    return cost_of(usage, tokens, search_price(model))
