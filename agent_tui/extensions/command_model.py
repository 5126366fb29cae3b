"""A custom command's `model:`: that command's turn runs on the named model, and the session is
back on its own model when the turn ends (however it ends).

The name is read as `/model NAME` reads it (models.switched_model): a bare or `openai/` name
beside an api_base is another model on the same server. Claude Code's aliases (`haiku`, `sonnet`,
`opus`) name no model here, so such a command runs on the session's model with one notice, as
does a model whose window cannot be known. Only what a request depends on is swapped — the
provider, the model name (prices, the cost line), `[model]` and the window — so nothing is
rebuilt and the session's history, tools and budget carry on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_tui.agent.image_attach import pictures_with_bytes, takes_images
from agent_tui.base.toml_files import ConfigError
from agent_tui.llm.models import resolve_limits, switched_model
from agent_tui.llm.provider import Provider

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession

CLAUDE_ALIASES = frozenset({"haiku", "sonnet", "opus", "opusplan", "default", "inherit"})
"""Claude Code's model aliases: its own choice of a Claude model, none of ours."""

Restore = Callable[[], None]


def _same(session: AgentSession, name: str) -> bool:
    current = session.model
    return name == current or (current.startswith("openai/") and current.removeprefix("openai/") == name)


def use_model(session: AgentSession, command: str, name: str) -> tuple[str, Restore | None]:
    """Put `session` on model `name` for one turn: (the line to tell the user, the call that
    puts it back, or None when the session stays on its own model)."""

    own = session.model
    if name.lower() in CLAUDE_ALIASES:
        return (
            f"/{command} asks for `model: {name}`, a Claude Code alias that names no model here; "
            f"this turn stays on {own}",
            None,
        )
    settings, _left = switched_model(session.config.model, name)
    config = replace(session.config, model=settings)
    try:
        limits = resolve_limits(config)
    except ConfigError as exc:
        return f"/{command} asks for model {name}: {exc}; this turn stays on {own}", None
    old = session.provider
    provider = Provider(
        name,
        api_base=settings.api_base,
        api_key_env=settings.api_key_env if config.provenance.api_key_allowed else None,
        timeout=old.timeout,
        max_retries=old.max_retries,
        extra=old.extra,
        retry_base_delay=old.retry_base_delay,
        limits=old.limits,
        transport=config.provider.transport,
        env_key_for_api_base=old.env_key_for_api_base,
    )
    provider.reasoning = old.reasoning
    saved = (session.provider, session.model, session.config, session.limits)
    meter = session.meter
    window = (meter.total, meter.max_output_tokens)
    session.provider, session.model, session.config, session.limits = provider, name, config, limits
    meter.resize(limits.context_window, limits.max_output_tokens)

    def restore() -> None:
        session.provider, session.model, session.config, session.limits = saved
        meter.resize(*window)

    said = f"/{command} runs on {name} for this turn (its `model:`); then back to {own}"
    return said + _pictures_note(session, name), restore


def _pictures_note(session: AgentSession, name: str) -> str:
    """What the turn's model gets of the pictures already sent, when it takes no images
    (the request sends their placeholder lines: agent/image_attach.for_model)."""

    count = pictures_with_bytes(session.history)
    if not count or takes_images(name):
        return ""
    pictures = "1 picture" if count == 1 else f"{count} pictures"
    verb = "goes" if count == 1 else "go"
    return f"; it takes no images, so the {pictures} earlier in the conversation {verb} as a line of text"


def wanted(session: AgentSession, name: str | None) -> bool:
    """Does a command's `model:` ask for a model other than the session's?"""
    return bool(name) and not _same(session, name or "")
