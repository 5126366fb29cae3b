"""The provider's own web search, offered and shown like a tool call.

A model on Anthropic's direct API can run `web_search` on the provider's side, and OpenAI's
dedicated search models search as they answer: nothing runs here, but the user sees each search
as a call with its query (where the provider reports it) and sources, and its output — the
sources — is stored whole with a ref like any tool output. Elsewhere nothing is offered and
`/tools` says why.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.base.messages import ToolCall
from agent_tui.base.tool_decl import Capabilities
from agent_tui.llm.catalog import entry
from agent_tui.llm.cost import format_cost, search_price
from agent_tui.llm.wire_format import ANTHROPIC

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from agent_tui.agent.tool_runner import ToolRunner
    from agent_tui.config import Config
    from agent_tui.llm.provider import Provider
    from agent_tui.llm.stream import ServerSearch

TOOL_TYPE = "web_search_20250305"

NAME = "web_search"
CAPABILITIES = Capabilities(kind="search", claude_names=("WebSearch",))
"""What the search declares, as a tool would in its spec (it has none: the provider runs it), so
Claude Code's `WebSearch` rule names it (compose/rule_words.py)."""


def shape(provider: Provider) -> str | None:
    """Which shape of the provider's own search the route speaks: `anthropic` (the web_search
    server tool in `tools`), `openai` (a dedicated search model on chat completions, asked with
    `web_search_options`), or None."""

    if provider.format is ANTHROPIC:
        return "anthropic"
    return "openai" if is_search_model(provider.model) else None


def is_search_model(model: str) -> bool:
    """OpenAI's dedicated search models (gpt-4o-search-preview, gpt-5-search-api, …): the only
    chat-completions models that take `web_search_options` (OpenAI refuses it elsewhere)."""

    found = entry(model) or {}
    return bool(found.get("supports_web_search")) and "-search-" in model.rsplit("/", 1)[-1]


def server_tools(config: Config, provider: Provider) -> list[dict[str, Any]]:
    """The server tools a request carries: the search when it is on and the route has one."""
    if not config.web.search or shape(provider) != "anthropic":
        return []
    return [{"type": TOOL_TYPE, "name": NAME, "max_uses": config.web.search_max_uses}]


def request_keys(config: Config, provider: Provider) -> dict[str, Any]:
    """The body keys every request of a search model carries when the search is on."""
    if not config.web.search or shape(provider) != "openai":
        return {}
    return {"web_search_options": {}}  # the provider's default search context size


def why_not(config: Config, provider: Provider | None) -> str:
    """`/tools`' line about web search."""
    found = shape(provider) if provider is not None else None
    if found is None:
        return "web search: not offered (Anthropic's API or OpenAI search models only)"
    if not config.web.search:
        return "web search: off ([web] search = true offers the provider's own)"
    if found == "openai":
        return "web search: the provider's own (the search model searches as it answers)"
    return f"web search: the provider's own (up to {config.web.search_max_uses} per reply)"


def _price(model: str) -> str:
    """The provider bills each search apart from tokens (the reply's usage counts them)."""

    price = search_price(model)
    return "search cost unknown" if price is None else f"{format_cost(price).rstrip('0')} a search"


def _text(search: ServerSearch) -> str:
    head = f"web search: {search.query}" if search.query else "web search (the query is not reported)"
    if search.error is not None:
        return f"{head}\nerror: {search.error}"
    lines = [f"{n}. {title}\n   {url}" for n, (title, url) in enumerate(search.sources, 1)]
    return "\n".join([head, *lines]) if lines else f"{head}\nno results"


async def events(runner: ToolRunner, search: ServerSearch) -> AsyncIterator[ev.AgentEvent]:
    """The started and finished events of one provider search, its sources stored with a ref."""
    call = ToolCall(id=search.id, name=NAME, arguments=json.dumps({"query": search.query}))
    yield ev.ToolCallStarted(call)
    text = _text(search)
    ref = None
    if runner.store is not None:
        try:
            ref = await runner.store.results.offload(runner.session_id, NAME, call.id, text)
        except Exception:  # noqa: BLE001 - a full disk: the sources still show, without a ref
            ref = None
    found = f"{len(search.sources)} sources" if search.error is None else f"error {search.error}"
    summary = f"{found} · {_price(runner.config.model.name or '')}"
    yield ev.ToolCallFinished(
        call,
        ref,
        search.error is not None,
        summary,
        text,
        0.0,
        "error" if search.error is not None else "ok",
    )
