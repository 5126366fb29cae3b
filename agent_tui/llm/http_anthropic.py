"""Anthropic's Messages API over httpx: the stream read back as the session's events.

The request — the session's OpenAI-format wire dicts translated — is built by
llm/anthropic_request.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent_tui.base.messages import TokenUsage, ToolCall
from agent_tui.base.reasoning import ThinkingBlock
from agent_tui.llm.http_common import Clock, bad_response, incomplete, sse_data, status_error
from agent_tui.llm.stream import (
    ReasoningChunk,
    ServerSearch,
    StreamDone,
    StreamEvent,
    TextChunk,
    ThinkingReady,
    ToolCallsReady,
    UsageChunk,
)

VERSION = "2023-06-01"
_STOP = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def _usage(report: dict[str, Any]) -> TokenUsage:
    read = int(report.get("cache_read_input_tokens") or 0)
    written = int(report.get("cache_creation_input_tokens") or 0)
    prompt = int(report.get("input_tokens") or 0) + read + written
    return TokenUsage.from_litellm(
        {
            "prompt_tokens": prompt,
            "completion_tokens": int(report.get("output_tokens") or 0),
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
        }
    )


def _search(block: dict[str, Any], asked: list[str] | None) -> ServerSearch:
    """A `web_search_tool_result` block with the query its `server_tool_use` streamed."""
    try:
        query = str(json.loads("".join(asked or ()) or "{}").get("query") or "")
    except (ValueError, AttributeError):
        query = ""
    content = block.get("content")
    if isinstance(content, dict):  # web_search_tool_result_error
        return ServerSearch(
            str(block.get("tool_use_id")), query, (), str(content.get("error_code") or "error")
        )
    found = tuple(
        (str(r.get("title") or ""), str(r.get("url") or ""))
        for r in content or ()
        if isinstance(r, dict) and r.get("type") == "web_search_result"
    )
    return ServerSearch(str(block.get("tool_use_id")), query, found)


async def events(response: Any, clock: Clock) -> AsyncIterator[StreamEvent]:
    """The stream's events; raises for an error event or a stream without message_stop."""
    usage: dict[str, Any] = {}
    calls: dict[int, dict[str, Any]] = {}
    thinking: dict[int, dict[str, Any]] = {}
    searches: dict[str, list[str]] = {}
    """The provider's own tool calls' input by call id: it comes in deltas, the result whole."""
    search_at: dict[int, list[str]] = {}
    stop: str | None = None
    started = finished = False
    async for _, data in sse_data(response, clock):
        try:
            event = json.loads(data)
        except ValueError:
            raise bad_response(clock.where, "a stream event that is not JSON") from None
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "message_start":
            started = True
            usage.update(event.get("message", {}).get("usage") or {})
        elif kind == "content_block_start":
            block = event.get("content_block") or {}
            if block.get("type") == "tool_use":
                calls[event.get("index", len(calls))] = {
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "args": [],
                }
            elif block.get("type") == "server_tool_use":
                given = [json.dumps(block["input"])] if block.get("input") else []
                searches[str(block.get("id"))] = search_at[event.get("index", -1)] = given
            elif block.get("type") == "web_search_tool_result":
                asked = searches.pop(str(block.get("tool_use_id")), None)
                yield _search(block, asked)
            elif block.get("type") == "text" and block.get("text"):
                yield TextChunk(block["text"])
            elif block.get("type") in ("thinking", "redacted_thinking"):
                thinking[event.get("index", -1 - len(thinking))] = dict(block)
                if block.get("thinking"):
                    yield ReasoningChunk(block["thinking"])
        elif kind == "content_block_delta":
            delta = event.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                yield TextChunk(delta["text"])
            elif delta.get("type") == "thinking_delta":
                open_block = thinking.get(event.get("index", -1))
                if open_block is not None and delta.get("thinking"):
                    open_block["thinking"] = (open_block.get("thinking") or "") + delta["thinking"]
                    yield ReasoningChunk(delta["thinking"])
            elif delta.get("type") == "signature_delta":
                open_block = thinking.get(event.get("index", -1))
                if open_block is not None:
                    open_block["signature"] = (open_block.get("signature") or "") + (
                        delta.get("signature") or ""
                    )
            elif delta.get("type") == "input_json_delta":
                call = calls.get(event.get("index", -1))
                if call is not None:
                    call["args"].append(delta.get("partial_json") or "")
                elif event.get("index", -1) in search_at:
                    search_at[event.get("index", -1)].append(delta.get("partial_json") or "")
        elif kind == "message_delta":
            stop = (event.get("delta") or {}).get("stop_reason") or stop
            usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            finished = True
            break
        elif kind == "error":
            error = event.get("error") or {}
            status = _ERROR_STATUS.get(str(error.get("type")), 500)
            raise status_error(status, json.dumps(event).encode(), response)
    if not started:
        raise incomplete(clock.where, "an empty stream")
    if not finished:
        raise incomplete(clock.where, "the stream ended before message_stop")
    signed = (ThinkingBlock.from_anthropic(b) for _, b in sorted(thinking.items()))
    blocks = tuple(b for b in signed if b is not None)
    if blocks:
        yield ThinkingReady(blocks)
    ready = tuple(
        ToolCall(id=str(c["id"]), name=str(c["name"]), arguments="".join(c["args"]) or "{}")
        for _, c in sorted(calls.items())
    )
    if ready:
        yield ToolCallsReady(ready)
    yield UsageChunk(_usage(usage))
    yield StreamDone(_STOP.get(stop or "", stop))
