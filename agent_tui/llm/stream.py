"""What a streamed model call yields, and the assembly of litellm's chunks into it.

The loop should not know litellm's chunk objects: it gets text (and a reasoning model's reasoning)
as it arrives, the tool calls once they are whole (the arguments come in pieces, interleaved by
index), Anthropic's thinking blocks once they are whole, the usage, and the finish reason — small
frozen values.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from agent_tui.base.messages import TokenUsage, ToolCall
from agent_tui.base.reasoning import ThinkingBlock
from agent_tui.llm.errors import Kind


@dataclass(frozen=True)
class TextChunk:
    """A piece of the assistant's text, in order."""

    text: str
    """The delta as the provider sent it."""


@dataclass(frozen=True)
class ReasoningChunk:
    """A piece of the model's reasoning (`reasoning_content`, an Anthropic thinking delta)."""

    text: str


@dataclass(frozen=True)
class ThinkingReady:
    """Anthropic's thinking blocks of the reply, whole and signed (sent once, before the calls)."""

    blocks: tuple[ThinkingBlock, ...]


@dataclass(frozen=True)
class ToolCallsReady:
    """Every tool call of the reply, assembled from the deltas (sent once, after the text)."""

    calls: tuple[ToolCall, ...]
    """In the order the model made them."""


@dataclass(frozen=True)
class ServerSearch:
    """A web search the provider ran itself (Anthropic's server-side `web_search`), whole: its
    query and the sources it found, or the provider's error code."""

    id: str
    query: str
    sources: tuple[tuple[str, str], ...]
    """(title, url) in the provider's order."""
    error: str | None = None


@dataclass(frozen=True)
class UsageChunk:
    """The provider's usage report for this call."""

    usage: TokenUsage
    """Input (uncached), output, cache reads and writes."""


@dataclass(frozen=True)
class StreamDone:
    """The stream ended normally."""

    finish_reason: str | None
    """stop / tool_calls / length / content_filter, or None when the provider gave none."""


@dataclass(frozen=True)
class RetryWait:
    """A try failed before anything of it was yielded and another follows after `wait` seconds:
    said before the wait, so a user watching sees `retrying 2/3` rather than a long silence."""

    attempt: int
    """The try about to be made (2 for the first retry)."""
    tries: int
    """Tries in all (`max_retries`, the first included)."""
    wait: float
    """Seconds until it is made (the provider's Retry-After, or our backoff)."""
    kind: Kind
    """The failed try's error kind (llm/errors.py: rate_limit, provider, connection)."""
    reason: str
    """The failed try's one-line message."""


StreamEvent = (
    TextChunk
    | ReasoningChunk
    | ThinkingReady
    | ToolCallsReady
    | ServerSearch
    | UsageChunk
    | StreamDone
    | RetryWait
)


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ChunkAssembler:
    """Feeds on litellm stream chunks; returns the events each chunk completes."""

    def __init__(self) -> None:
        self._calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.usage: TokenUsage | None = None
        self.text_parts: list[str] = []
        self.blocks: list[ThinkingBlock] = []

    def feed(self, chunk: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        usage = _get(chunk, "usage")
        if usage is not None and (_get(usage, "prompt_tokens") or _get(usage, "completion_tokens")):
            self.usage = TokenUsage.from_litellm(usage)  # the last report wins
        for choice in _get(chunk, "choices") or ():
            delta = _get(choice, "delta")
            # llama.cpp, vLLM, DeepSeek and litellm say `reasoning_content`; OpenRouter `reasoning`.
            thought = _get(delta, "reasoning_content") or _get(delta, "reasoning")
            if isinstance(thought, str) and thought:
                events.append(ReasoningChunk(thought))
            for block in _get(delta, "thinking_blocks") or ():  # litellm's Anthropic blocks
                self._feed_block(block)
            text = _get(delta, "content")
            if text:
                self.text_parts.append(text)
                events.append(TextChunk(text))
            for call in _get(delta, "tool_calls") or ():
                self._feed_call(call)
            reason = _get(choice, "finish_reason")
            if reason:
                self.finish_reason = reason
        return events

    def _feed_block(self, block: Any) -> None:
        data = (
            block
            if isinstance(block, dict)
            else {k: _get(block, k) for k in ("type", "thinking", "signature", "data")}
        )
        parsed = ThinkingBlock.from_anthropic(data)
        if parsed is None:
            return
        last = self.blocks[-1] if self.blocks else None
        # litellm streams a block's text and then its signature as separate pieces of one block.
        if last is not None and last.type == parsed.type == "thinking" and not last.signature:
            self.blocks[-1] = ThinkingBlock("thinking", last.thinking + parsed.thinking, parsed.signature)
        else:
            self.blocks.append(parsed)

    def _feed_call(self, delta: Any) -> None:
        index = _get(delta, "index")
        if index is None:  # some providers omit it for single calls
            index = max(self._calls, default=0) if _get(delta, "id") is None else len(self._calls)
        partial = self._calls.setdefault(index, _PartialCall())
        call_id = _get(delta, "id")
        if call_id:
            partial.id = call_id
        fn = _get(delta, "function")
        name = _get(fn, "name")
        if name:
            partial.name = name
        args = _get(fn, "arguments")
        if args:
            partial.arguments.append(args)

    def calls(self) -> tuple[ToolCall, ...]:
        out = []
        for _, p in sorted(self._calls.items()):
            if not p.name:
                continue
            arguments = "".join(p.arguments) or "{}"
            out.append(ToolCall(id=p.id or f"call_{uuid.uuid4().hex[:12]}", name=p.name, arguments=arguments))
        return tuple(out)

    def finish(self) -> list[StreamEvent]:
        """The closing events: tool calls (if any), usage (if reported), done."""
        events: list[StreamEvent] = []
        if self.blocks:
            events.append(ThinkingReady(tuple(self.blocks)))
        calls = self.calls()
        if calls:
            events.append(ToolCallsReady(calls))
        if self.usage is not None:
            events.append(UsageChunk(self.usage))
        events.append(StreamDone(self.finish_reason))
        return events
