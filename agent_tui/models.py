"""A model's window and reply reserve, from config overrides or litellm's model info."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.config import Config, ConfigError

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
            from agent_tui.llm.model_info import lookup as litellm_lookup

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
