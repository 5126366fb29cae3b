"""One model call of a step: the request sent, its stream turned into events and a reply.

`request_stream` sends the history (made wire-valid by the session) with the last measured prompt
sections and tool schemas, and passes the provider's chunks and notices on. `follow` turns those
chunks into the events the user sees while filling a `StreamedReply`, which the step makes the
assistant message from — or, when the stream fails or is cancelled half-way, keeps what came.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.agent.thinking import ThinkingTrace
from agent_tui.base.messages import Message, TokenUsage, ToolCall, assistant
from agent_tui.llm.stream import (
    ReasoningChunk,
    RetryWait,
    ServerSearch,
    StreamDone,
    TextChunk,
    ThinkingReady,
    ToolCallsReady,
    UsageChunk,
)

if TYPE_CHECKING:
    from agent_tui.agent.prompting import PromptAssembler
    from agent_tui.llm.provider import Provider


@dataclass
class StreamedReply:
    """What one model call said so far."""

    text_parts: list[str] = field(default_factory=list)
    calls: tuple[ToolCall, ...] = ()
    finish: str | None = None
    """The provider's finish reason (`length`: cut off at the output limit)."""
    thinking: ThinkingTrace = field(default_factory=ThinkingTrace)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def message(self, count_text: Callable[[str], int]) -> tuple[Message, ev.ReasoningFinished | None]:
        """The assistant message it makes, and the reasoning's end to report (None without)."""
        reply = assistant(self.text or None, self.calls)
        reasoning = self.thinking.result(count_text)
        if reasoning is None:
            return reply, None
        return replace(reply, reasoning=reasoning), ev.ReasoningFinished(reasoning.tokens, reasoning.duration)


async def request_stream(
    provider: Provider,
    prompts: PromptAssembler,
    messages: list[Message],
    request_parts: tuple[list[Any], list[dict[str, Any]]],
    max_tokens: int,
    server_tools: list[dict[str, Any]] | None = None,
) -> AsyncIterator[Any]:
    """The provider's stream for `messages` (already wire-valid), with every notice on the way."""
    sections, tools = request_parts
    prompts.send_thinking = provider.takes_thinking_blocks
    request = prompts.request(messages, sections, tools)
    for notice in request.notices:  # a degraded prompt part, an MCP server gone
        yield ev.Notice(notice)
    tools = [*(request.tools or ()), *(server_tools or ())]  # server tools: run by the provider
    async for chunk in provider.stream(request.messages, tools=tools or None, max_tokens=max_tokens):
        while provider.notices:  # how the request went out (reasoning not sent, …)
            yield ev.Notice(provider.notices.pop(0))
        yield chunk


async def follow(
    chunks: AsyncIterator[Any],
    reply: StreamedReply,
    on_usage: Callable[[TokenUsage], Awaitable[ev.AgentEvent]],
    on_search: Callable[[ServerSearch], AsyncIterator[ev.AgentEvent]] | None = None,
) -> AsyncIterator[ev.AgentEvent]:
    """The events of a model call, filling `reply` as they come; `on_usage` accounts a usage
    report and gives the event saying so; `on_search` shows a search the provider ran."""
    thinking = reply.thinking
    async for chunk in chunks:
        match chunk:
            case TextChunk(text=text):
                thinking.answered()
                reply.text_parts.append(text)
                yield ev.TextDelta(text)
            case ReasoningChunk(text=text):
                thinking.delta(text)
                yield ev.ReasoningDelta(text)
            case ThinkingReady(blocks=blocks):
                thinking.blocks_ready(blocks)
            case ToolCallsReady(calls=ready):
                thinking.answered()
                reply.calls = ready
            case StreamDone(finish_reason=reason):
                reply.finish = reason
            case UsageChunk(usage=usage):
                thinking.reported(usage.reasoning)
                yield await on_usage(usage)
            case ServerSearch() if on_search is not None:
                async for event in on_search(chunk):
                    yield event
            case ev.Notice():
                yield chunk
            case RetryWait(attempt=n, tries=of, wait=wait, kind=kind, reason=why):
                yield ev.Retrying(n, of, wait, kind, why)
