"""What litellm knows of a model's limits and prices — read from its bundled price map as data.

The map (llm/catalog.py) answers for every name litellm lists without `import litellm`, which
costs seconds at launch; only a name of another provider that the map does not list is asked of
litellm itself (that provider's calls go through litellm anyway).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.llm import catalog
from agent_tui.llm.lazy import litellm

_DIRECT_PREFIXES = ("openai/", "anthropic/", "openrouter/")


@dataclass(frozen=True)
class ModelInfo:
    context_window: int | None
    """Max input tokens (or max tokens when litellm has no input figure)."""
    max_output_tokens: int | None
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None
    cache_read_cost_per_token: float | None = None
    cache_creation_cost_per_token: float | None = None


def lookup(model: str) -> ModelInfo | None:
    """litellm's figures for `model`, or None when it does not know the model."""
    info = catalog.entry(model)
    if info is None:
        info = _ask_litellm(model)
    if info is None:
        return None
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return ModelInfo(
        context_window=int(window) if window else None,
        max_output_tokens=int(info["max_output_tokens"]) if info.get("max_output_tokens") else None,
        input_cost_per_token=info.get("input_cost_per_token"),
        output_cost_per_token=info.get("output_cost_per_token"),
        cache_read_cost_per_token=info.get("cache_read_input_token_cost"),
        cache_creation_cost_per_token=info.get("cache_creation_input_token_cost"),
    )


def _ask_litellm(model: str) -> dict[str, Any] | None:
    prefix, _, rest = model.partition("/")
    if not rest or model.startswith(_DIRECT_PREFIXES) or not catalog.is_provider(prefix):
        return None  # the map is all litellm would consult for these names

    try:
        found = litellm().get_model_info(model)
    except Exception:  # noqa: BLE001 - litellm raises bare Exception for unknown models
        return None
    return dict(found) if found else None
