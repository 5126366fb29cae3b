"""OpenAI-compatible chat completions over httpx: OpenAI, OpenRouter, llama.cpp, vLLM, Ollama, LM Studio.

The request is the wire dicts the session already built, serialised as they are (in a worker
thread, so a long history never holds the UI loop); the streamed chunks are OpenAI's, fed to the
same ChunkAssembler the litellm path uses. What is not a proper stream — an HTML page, text that
is not JSON, a stream with no chunks, one that stops before `[DONE]` or a finish reason — is an
error, never an empty reply.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent_tui.base.messages import TokenUsage
from agent_tui.base.wire_dict import as_sent, same_as_sent
from agent_tui.llm.http_common import (
    Clock,
    bad_response,
    incomplete,
    looks_like_html,
    sse_data,
    status_error,
)
from agent_tui.llm.stream import ChunkAssembler, ReasoningChunk, StreamEvent, TextChunk

_COMPLETION_TOKENS_FAMILIES = ("o1", "o3", "o4", "gpt-5")
"""OpenAI's reasoning families take max_completion_tokens and reject max_tokens."""


Sent = tuple[list[dict[str, Any]], list[bytes]]
"""A request's messages as sent — a read-only WireDict itself, any other dict as a shallow copy —
and their JSON, each but the first led by the array's `, ` separator (so the body is the chunks
as they are, never joined whole)."""
Plan = tuple[Sent, int]
"""What an encode may reuse: a request as sent and how many leading messages the next repeats."""


class EncodedMessages:
    """The JSON of the last request's messages, reused for the part the next request repeats.

    A step's request is the last one's messages plus a few: the longest prefix the same as the
    last request's keeps its JSON, only the rest is serialised, so the overhead stays flat as a
    session grows. The same means the very same read-only WireDict (the assembler hands every
    request the same objects, and they cannot change after they were sent), found by one
    identity scan at C speed; the system message, a new dict each request, is compared by
    value. Any other dict was kept as a copy, so it is never the same object again and is
    serialised afresh, never sent stale. The state is replaced whole, in one assignment, after
    each request, and a plan carries the state it was made against, so a second request in
    flight can only reuse less."""

    def __init__(self) -> None:
        self._last: Sent = ([], [])

    def plan(self, messages: list[dict[str, Any]]) -> Plan:
        """What encoding `messages` can reuse (made once, on the loop, to decide where to encode)."""
        last = self._last
        return last, same_as_sent(messages, last[0])

    def reusable(self, messages: list[dict[str, Any]]) -> int:
        """How many leading messages the next encode would reuse."""
        return self.plan(messages)[1]

    def encode(self, messages: list[dict[str, Any]], plan: Plan | None = None) -> list[bytes]:
        (copies, parts), k = plan or self.plan(messages)
        dumps = json.dumps
        tail = messages[k:]
        fresh = [b", " + dumps(message).encode() for message in tail]
        if k == 0 and fresh:
            fresh[0] = fresh[0][2:]
        parts = parts[:k] + fresh
        # Only the new messages: the prefix's were kept when it was sent.
        self._last = (copies[:k] + as_sent(tail), parts)
        return parts


def encode(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    max_tokens: int | None,
    *,
    stream: bool,
    provider: str | None,
    extra: dict[str, Any],
    memo: EncodedMessages | None = None,
    plan: Plan | None = None,
) -> list[bytes]:
    """The request body, as chunks to send one after another (joined, they are the JSON). Runs
    in a worker thread when many messages are new: they are serialised one by one, so the
    interpreter can hand the loop its turn between them (one big dumps would hold the GIL)."""
    head: dict[str, Any] = {"model": model, "stream": stream}
    if stream:
        head["stream_options"] = {"include_usage": True}
    if tools:
        head["tools"] = tools
    if max_tokens is not None:
        reasoning = provider == "openai" and model.startswith(_COMPLETION_TOKENS_FAMILIES)
        head["max_completion_tokens" if reasoning else "max_tokens"] = max_tokens
    head.update(extra)
    parts = (memo or EncodedMessages()).encode(messages, plan)
    return [json.dumps(head)[:-1].encode() + b', "messages": [', *parts, b"]}"]


async def events(response: Any, clock: Clock) -> AsyncIterator[StreamEvent]:
    """The stream's events; raises for a body that is not a whole stream."""
    content_type = response.headers.get("content-type", "")
    if "json" in content_type:  # a server that ignored stream=true: one whole completion
        for event in from_completion(await read_json(response, clock)):
            yield event
        return
    assembler = ChunkAssembler()
    done = seen = False
    async for _, data in sse_data(response, clock):
        if data.strip() == "[DONE]":
            done = True
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            raise bad_response(clock.where, "a stream chunk that is not JSON") from None
        if not isinstance(chunk, dict):
            raise bad_response(clock.where, "a stream chunk that is not a JSON object")
        if "error" in chunk and not chunk.get("choices"):
            raise status_error(500, data.encode(), response)
        seen = True
        for event in assembler.feed(chunk):
            yield event
    if not seen:
        raise incomplete(clock.where, "an empty stream")
    if not done and assembler.finish_reason is None:
        raise incomplete(clock.where, "the stream ended before its end")
    for event in assembler.finish():
        yield event


async def read_json(response: Any, clock: Clock) -> dict[str, Any]:
    raw = await clock.read(response)
    content_type = response.headers.get("content-type", "")
    try:
        data = json.loads(raw)
    except ValueError:
        what = "an HTML page" if looks_like_html(content_type, raw[:64]) else "text that is not JSON"
        raise bad_response(clock.where, what) from None
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list) or not data["choices"]:
        raise bad_response(clock.where, "JSON without choices")
    return data


def from_completion(data: dict[str, Any]) -> list[StreamEvent]:
    """A non-streamed completion as the events a stream would have given."""
    assembler = ChunkAssembler()
    choice = data["choices"][0]
    message = choice.get("message") or {}
    events: list[StreamEvent] = []
    thought = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(thought, str) and thought:
        events.append(ReasoningChunk(thought))
    if message.get("content"):
        events.append(TextChunk(message["content"]))
    calls = [{"index": i, **call} for i, call in enumerate(message.get("tool_calls") or ())]
    assembler.feed(
        {"choices": [{"delta": {"tool_calls": calls}, "finish_reason": choice.get("finish_reason")}]}
    )
    if data.get("usage"):
        assembler.usage = TokenUsage.from_litellm(data["usage"])
    return events + assembler.finish()


def completion_text(data: dict[str, Any]) -> tuple[str, TokenUsage]:
    message = data["choices"][0].get("message") or {}
    usage = data.get("usage")
    return str(message.get("content") or ""), TokenUsage.from_litellm(usage) if usage else TokenUsage()
