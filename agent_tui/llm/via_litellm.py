"""One call through litellm: every provider the direct HTTP path (llm/direct.py) does not cover.

Same events, limits and errors as the direct path: the stream is fed to the same ChunkAssembler,
the Clock enforces `[provider]` time limits, and a stream that stops early is an error.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from typing import Any

from agent_tui.base.messages import TokenUsage
from agent_tui.llm.http_common import Clock, incomplete
from agent_tui.llm.lazy import litellm
from agent_tui.llm.stream import ChunkAssembler, StreamEvent

log = logging.getLogger(__name__)


async def stream(
    model: str,
    params: dict[str, Any],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    max_tokens: int | None,
    clock: Clock,
) -> AsyncGenerator[StreamEvent, None]:
    """The reply as events (`params`: litellm's keyword arguments besides the request)."""
    kwargs: dict[str, Any] = dict(params)
    if tools:
        kwargs["tools"] = tools
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    response: Any = None
    try:
        response = await clock.first(
            litellm().acompletion(
                model=model,
                messages=_changeable(messages),
                stream=True,
                stream_options={"include_usage": True},
                **kwargs,
            )
        )
        assembler = ChunkAssembler()
        chunks = response.__aiter__()
        seen = False
        while True:
            try:
                chunk = await clock.next(chunks)
            except StopAsyncIteration:
                break
            seen = True
            for event in assembler.feed(chunk):
                yield event
        if not seen:
            raise incomplete(clock.where, "an empty stream")
        if assembler.finish_reason is None:
            raise incomplete(clock.where, "the stream ended before its end")
        for event in assembler.finish():
            yield event
    finally:
        if response is not None:
            await _close(response)


async def complete(
    model: str, params: dict[str, Any], messages: list[dict[str, Any]], max_tokens: int | None, clock: Clock
) -> tuple[str, TokenUsage]:
    """A non-streamed reply: its text and usage."""
    kwargs: dict[str, Any] = dict(params)
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    response = await clock.first(litellm().acompletion(model=model, messages=_changeable(messages), **kwargs))
    choice = response.choices[0]
    text = getattr(choice.message, "content", None) or ""
    usage = getattr(response, "usage", None)
    return text, TokenUsage.from_litellm(usage) if usage is not None else TokenUsage()


def _changeable(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies for litellm, which rewrites messages in place for some providers: the session's
    wire dicts are shared by every request and read-only (agent_tui/base/wire_dict.py)."""
    return [dict(message) for message in messages]


async def _close(response: Any) -> None:
    """Close a litellm stream so its HTTP connection is released now, not at GC."""
    close = getattr(response, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception as exc:  # noqa: BLE001 - closing is best effort
        log.debug("closing the stream failed: %s", exc)
