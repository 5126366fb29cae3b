"""What a reply cost, from litellm's price data. Cached and uncached input are priced apart.

A model litellm has no prices for (a local server, a new model) costs "unknown" — never 0, which
would read as free. Searches a provider runs itself are billed per search, on top of tokens, at the
map's per-search price; a search without one makes the reply's cost unknown too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from agent_tui.base.messages import TokenUsage
from agent_tui.llm.catalog import entry
from agent_tui.llm.model_info import lookup


@dataclass(frozen=True)
class Prices:
    """USD per token."""

    input: float
    output: float
    cache_read: float
    """Falls back to the input price when litellm has no separate figure."""
    cache_creation: float


def declared_prices(input_per_mtok: float | None, output_per_mtok: float | None) -> Prices | None:
    """`[model] input_price_per_mtok` / `output_price_per_mtok` as prices per token; None when
    the user declared none."""
    if input_per_mtok is None or output_per_mtok is None:
        return None
    given, made = input_per_mtok / 1_000_000, output_per_mtok / 1_000_000
    return Prices(input=given, output=made, cache_read=given, cache_creation=given)


def search_price(model: str) -> float | None:
    """USD per search the provider's own web search runs for `model` (Anthropic's web_search
    tool, an OpenAI search model), from litellm's price map — the one place it is declared, at
    the default search context size; None when the map has none (unknown, never 0)."""

    found = entry(model) or {}
    per_query = found.get("search_context_cost_per_query")
    price = per_query.get("search_context_size_medium") if isinstance(per_query, dict) else None
    return float(price) if isinstance(price, int | float) else None


def why_unknown(model: str, searches: int) -> str:
    """What has no price when a session's cost is unknown: its searches, or the model's tokens."""
    if searches and search_price(model) is None:
        return "its web searches have no known price"
    return "this model's prices are unknown"


@lru_cache(maxsize=64)
def prices_for(model: str, api_base: str | None = None) -> Prices | None:
    """litellm's prices for `model`; None when unknown or served from a custom api_base."""
    if api_base:
        return None  # a local or proxied server: litellm's list prices do not apply

    info = lookup(model)
    if info is None or info.input_cost_per_token is None or info.output_cost_per_token is None:
        return None
    return Prices(
        input=info.input_cost_per_token,
        output=info.output_cost_per_token,
        cache_read=info.cache_read_cost_per_token
        if info.cache_read_cost_per_token is not None
        else info.input_cost_per_token,
        cache_creation=info.cache_creation_cost_per_token
        if info.cache_creation_cost_per_token is not None
        else info.input_cost_per_token,
    )


def cost_of(usage: TokenUsage, prices: Prices | None, per_search: float | None = None) -> float | None:
    """The tokens at `prices` plus the provider's searches at `per_search`; None when either
    price that is needed is unknown."""
    if prices is None or (usage.web_searches and per_search is None):
        return None
    return (
        usage.input * prices.input
        + usage.output * prices.output
        + usage.cache_read * prices.cache_read
        + usage.cache_creation * prices.cache_creation
        + usage.web_searches * (per_search or 0.0)
    )


def format_cost(cost: float | None) -> str:
    if cost is None:
        return "unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"
