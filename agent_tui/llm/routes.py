"""Which way a configured model is reached: the direct HTTP path or litellm.

The two wire formats most users use — OpenAI-compatible chat completions (OpenAI, OpenRouter,
llama.cpp, vLLM, Ollama, LM Studio behind an api_base) and Anthropic Messages — go straight over
httpx: no `import litellm` (seconds), no SDK walking every message on the event loop. Every other
provider goes through litellm as before. Decided from the name alone, without litellm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent_tui.llm import catalog

Wire = Literal["openai", "anthropic", "litellm"]
TRANSPORTS = ("auto", "litellm")
"""`[provider] transport`: auto = the direct path where it covers the model, else litellm."""

OPENAI_BASE = "https://api.openai.com/v1"
ANTHROPIC_BASE = "https://api.anthropic.com"
OPENROUTER_BASE = "https://openrouter.ai/api/v1"


@dataclass(frozen=True)
class Route:
    """How one model is reached."""

    wire: Wire
    """openai / anthropic: the direct path speaking that format; litellm: everything else."""
    provider: str | None
    """openai, anthropic, openrouter; None for a bare name behind an api_base."""
    model: str
    """The name sent on the wire (prefix removed)."""
    url: str
    """The endpoint posted to (empty for litellm)."""
    key_env: str | None
    """The variable the key comes from by default (OPENAI_API_KEY, …)."""

    @property
    def direct(self) -> bool:
        return self.wire != "litellm"


def _openai(provider: str | None, model: str, base: str, key_env: str | None) -> Route:
    return Route("openai", provider, model, base.rstrip("/") + "/chat/completions", key_env)


def anthropic_url(base: str) -> str:
    """litellm's rule: the api_base gets /v1/messages unless it already ends so."""
    base = base.rstrip("/")
    if base.endswith("/v1/messages"):
        return base
    if base.endswith("/v1"):
        return base + "/messages"
    return base + "/v1/messages"


def route_for(model: str, api_base: str | None, transport: str = "auto") -> Route:
    """The route for `model` (as configured) behind `api_base`."""
    if transport == "litellm":
        return Route("litellm", catalog.provider_of(model), model, "", None)
    prefix, _, rest = model.partition("/")
    if rest and prefix == "openai":
        return _openai("openai", rest, api_base or OPENAI_BASE, "OPENAI_API_KEY")
    if rest and prefix == "anthropic":
        return Route(
            "anthropic", "anthropic", rest, anthropic_url(api_base or ANTHROPIC_BASE), "ANTHROPIC_API_KEY"
        )
    if rest and prefix == "openrouter":
        return _openai("openrouter", rest, api_base or OPENROUTER_BASE, "OPENROUTER_API_KEY")
    provider = catalog.provider_of(model)
    if provider == "openai" and not rest:
        return _openai("openai", model, api_base or OPENAI_BASE, "OPENAI_API_KEY")
    if provider == "anthropic" and not rest:
        return Route(
            "anthropic", "anthropic", model, anthropic_url(api_base or ANTHROPIC_BASE), "ANTHROPIC_API_KEY"
        )
    if provider is None and api_base:
        # A name nobody lists ("llama3", "Qwen/Qwen2.5-7B") behind an api_base: the server's
        # OpenAI-compatible API, as litellm's openai/ prefix would make it.
        return _openai(None, model, api_base, None)
    return Route("litellm", provider, model, "", None)
