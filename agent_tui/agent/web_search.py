"""The provider's own web search, offered and shown like a tool call.

A model on Anthropic's direct API can run `web_search` on the provider's side: nothing runs here,
but the user sees each search as a call with its query and sources, and its output — the sources —
is stored whole with a ref like any tool output. Where the route cannot carry a server tool
(OpenAI's chat format, litellm), nothing is offered and `/tools` says why.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.base.messages import ToolCall

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from agent_tui.agent.tool_runner import ToolRunner
    from agent_tui.config import Config
    from agent_tui.llm.provider import Provider
    from agent_tui.llm.stream import ServerSearch

TOOL_TYPE = "web_search_20250305"


def offered(provider: Provider) -> bool:
    """The route speaks Anthropic's Messages API itself, where server tools go in `tools`."""
    from agent_tui.llm.wire_format import ANTHROPIC

    return provider.format is ANTHROPIC


def server_tools(config: Config, provider: Provider) -> list[dict[str, Any]]:
    """The server tools a request carries: the search when it is on and the route has one."""
    if not config.web.search or not offered(provider):
        return []
    return [{"type": TOOL_TYPE, "name": "web_search", "max_uses": config.web.search_max_uses}]


def why_not(config: Config, provider: Provider | None) -> str:
    """`/tools`' line about web search."""
    if provider is not None and offered(provider):
        if config.web.search:
            return f"web search: the provider's own (up to {config.web.search_max_uses} per reply)"
        return "web search: off ([web] search = true offers the provider's own)"
    return "web search: not offered (server search is Anthropic's API only)"


def _text(search: ServerSearch) -> str:
    head = f"web search: {search.query}"
    if search.error is not None:
        return f"{head}\nerror: {search.error}"
    lines = [f"{n}. {title}\n   {url}" for n, (title, url) in enumerate(search.sources, 1)]
    return "\n".join([head, *lines]) if lines else f"{head}\nno results"


async def events(runner: ToolRunner, search: ServerSearch) -> AsyncIterator[ev.AgentEvent]:
    """The started and finished events of one provider search, its sources stored with a ref."""
    call = ToolCall(id=search.id, name="web_search", arguments=json.dumps({"query": search.query}))
    yield ev.ToolCallStarted(call)
    text = _text(search)
    ref = None
    if runner.store is not None:
        try:
            ref = await runner.store.results.offload(runner.session_id, "web_search", call.id, text)
        except Exception:  # noqa: BLE001 - a full disk: the sources still show, without a ref
            ref = None
    found = f"{len(search.sources)} sources" if search.error is None else f"error {search.error}"
    # The provider bills searches apart from tokens; no price list here has a per-search figure.
    summary = f"{found} · search cost unknown"
    yield ev.ToolCallFinished(
        call,
        ref,
        search.error is not None,
        summary,
        text,
        0.0,
        "error" if search.error is not None else "ok",
    )
