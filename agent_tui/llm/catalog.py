"""litellm's model facts — windows, reply limits, prices, which provider serves a name — read as data.

`import litellm` costs seconds; the meter needs a window in the first second, and the two wire
formats most users use are spoken directly (llm/http_openai.py, llm/http_anthropic.py). litellm
ships its price map as a JSON file (`model_prices_and_context_window_backup.json`, the very file
it reads under LITELLM_LOCAL_MODEL_COST_MAP); this module reads that file without importing
litellm (~40 ms, once, thread-safe) and answers the same questions `get_model_info` and
`get_llm_provider` answer for the names in it.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PRICE_MAP_FILE = "model_prices_and_context_window_backup.json"

EXTRA_PROVIDERS = frozenset(
    {
        "openai",
        "anthropic",
        "openrouter",
        "ollama",
        "ollama_chat",
        "hosted_vllm",
        "lm_studio",
        "llamafile",
        "azure",
        "azure_ai",
        "bedrock",
        "vertex_ai",
        "gemini",
        "groq",
        "mistral",
        "deepseek",
        "together_ai",
        "fireworks_ai",
        "xai",
        "huggingface",
        "cohere",
        "perplexity",
        "custom_openai",
        "text-completion-openai",
        "litellm_proxy",
    }
)
"""Prefixes litellm treats as provider names even when the price map lists no model of theirs."""

_lock = threading.Lock()
_data: dict[str, dict[str, Any]] | None = None
_providers: frozenset[str] = EXTRA_PROVIDERS


def price_map_path() -> Path | None:
    """Where litellm's bundled price map is (found without importing litellm)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / PRICE_MAP_FILE
    return path if path.is_file() else None


def _load() -> dict[str, dict[str, Any]]:
    global _data, _providers
    if _data is not None:
        return _data
    with _lock:
        if _data is None:
            data: dict[str, dict[str, Any]] = {}
            path = price_map_path()
            try:
                if path is not None:
                    raw = json.loads(path.read_bytes())
                    data = {k: v for k, v in raw.items() if isinstance(v, dict) and k != "sample_spec"}
            except (OSError, ValueError) as exc:
                log.warning("litellm's price map could not be read (%s); models are unknown", exc)
            names = {str(v.get("litellm_provider")) for v in data.values() if v.get("litellm_provider")}
            _providers = EXTRA_PROVIDERS | frozenset(names)
            _data = data
    return _data


def chat_models() -> list[str]:
    """Every chat model litellm's price map lists (for `/model` completion), sorted."""
    return sorted(name for name, spec in _load().items() if spec.get("mode") == "chat")


def preload() -> None:
    """Read the price map now, in a daemon thread (the first lookup then does not wait for it)."""
    if _data is None:
        threading.Thread(target=_load, name="price-map", daemon=True).start()


def is_provider(name: str) -> bool:
    """True when `name` is a provider prefix litellm knows ("openai", "ollama", …)."""
    _load()
    return name in _providers


def entry(model: str) -> dict[str, Any] | None:
    """The price-map entry for `model` as litellm would find it, or None.

    `anthropic/claude-sonnet-4-5` is listed as `claude-sonnet-4-5`; `openrouter/…` names are
    listed with their prefix. A prefixed name matches only an entry of that provider."""
    data = _load()
    found = data.get(model)
    if found is not None:
        return found
    prefix, _, rest = model.partition("/")
    if rest and prefix in _providers:
        found = data.get(rest)
        if found is not None and _provider_matches(prefix, found.get("litellm_provider")):
            return found
    return None


def _provider_matches(prefix: str, listed: Any) -> bool:
    listed = str(listed or "")
    return bool(listed == prefix) or listed.startswith(prefix + "_") or listed.startswith(prefix + "-")


def provider_of(model: str) -> str | None:
    """The provider litellm would pick for `model`, when the price map or the prefix says;
    None for a name neither knows (litellm may still know it — ask it only when needed)."""
    prefix, _, rest = model.partition("/")
    if rest and is_provider(prefix):
        return prefix
    found = entry(model)
    if found is not None and found.get("litellm_provider"):
        return str(found["litellm_provider"])
    return None
