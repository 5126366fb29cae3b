"""A model's window and reply reserve, from config overrides or litellm's model info; and what of
`[model]` goes with a switch to another model."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.config import Config, ConfigError, ModelSettings
from agent_tui.llm import catalog
from agent_tui.llm.model_info import lookup as litellm_lookup

if TYPE_CHECKING:
    from agent_tui.llm.model_info import ModelInfo

DEFAULT_RESERVE_CAP = 8192


@dataclass(frozen=True)
class ModelLimits:
    context_window: int
    """The whole window in tokens."""
    max_output_tokens: int
    """The reply reserve (what the budget keeps free)."""
    known_to_litellm: bool


class UnknownModelError(ConfigError):
    """The model's window is not known and not configured."""


def reply_reserve(window: int, model_max_output: int | None, configured: int | None) -> int:
    """`[model] max_output_tokens` when set, else min(model max output, 8192, window/4).

    litellm reports 64 000 for some models and the whole window for others; taken as is, an
    Ollama model reporting 8 192 of 8 192 would leave an effective window of zero."""
    if configured is not None:
        return configured
    candidates = [DEFAULT_RESERVE_CAP, window // 4]
    if model_max_output:
        candidates.append(model_max_output)
    return max(1, min(candidates))


def resolve_limits(config: Config, lookup: Callable[[str], ModelInfo | None] | None = None) -> ModelLimits:
    """Limits for the configured model. `lookup` defaults to litellm's model info (lazy)."""
    name = config.model.name
    if not name:
        raise ConfigError("no model configured: set [model] name, AGENT_TUI_MODEL or --model")
    info = None
    if config.model.context_window is None or config.model.max_output_tokens is None:
        if lookup is None:
            lookup = litellm_lookup
        info = lookup(name)
    window = config.model.context_window or (info.context_window if info else None)
    if not window:
        raise UnknownModelError(
            f"unknown model {name!r}: litellm does not know its context window; set "
            "[model] context_window in config (or pass --context-window N)"
        )
    reserve = reply_reserve(window, info.max_output_tokens if info else None, config.model.max_output_tokens)
    if reserve >= window:
        raise ConfigError(f"model.max_output_tokens ({reserve}) must be smaller than the window ({window})")
    return ModelLimits(window, reserve, known_to_litellm=info is not None)


def switched_model(current: ModelSettings, name: str) -> tuple[ModelSettings, list[str]]:
    """`[model]` for `/model NAME`, and which keys stayed behind.

    A bare or `openai/` name beside an api_base is another model on that same server: everything
    carries over. Any other name is a model elsewhere: the api_base and its key variable, and the
    window and reply overrides written for the old model, would send it to the wrong server or
    size it wrongly; they stay behind (the window and reserve only when litellm's list knows the
    new model, else nothing would give it one). Reasoning settings always carry over."""
    same_server = current.api_base is not None and ("/" not in name or name.startswith("openai/"))
    if same_server:
        return dataclasses.replace(current, name=name), []
    left: list[str] = []
    if current.api_base is not None:
        left += ["api_base"]
    old_provider = catalog.provider_of(current.name) if current.name else None
    if current.api_key_env is not None and (
        current.api_base is not None or old_provider != catalog.provider_of(name)
    ):
        left += ["api_key_env"]
    if catalog.entry(name) is not None:
        left += [k for k in ("context_window", "max_output_tokens") if getattr(current, k) is not None]
    cleared: dict[str, Any] = dict.fromkeys(left)
    return dataclasses.replace(current, name=name, **cleared), left
