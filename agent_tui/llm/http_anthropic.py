"""Anthropic's Messages API over httpx: the OpenAI-format request translated, the stream read back.

The session builds OpenAI-format wire dicts (with `cache_control` marks from llm/cache.py); the
translation does what litellm did with them: system messages become the `system` blocks, tool
calls become `tool_use` blocks and tool results `tool_result` blocks in a user turn, consecutive
turns of one role merge (the API wants strict alternation; the per-turn status note joins the
last user turn), and every mark stays on the block it was on. It runs in a worker thread.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent_tui.llm.http_common import Clock, bad_response, incomplete, sse_data, status_error
from agent_tui.llm.stream import (
    ReasoningChunk,
    StreamDone,
    StreamEvent,
    TextChunk,
    ThinkingReady,
    ToolCallsReady,
    UsageChunk,
)
from agent_tui.messages import TokenUsage, ToolCall
from agent_tui.reasoning import ThinkingBlock

VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
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


def _text_blocks(content: Any) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            blocks.append(_image(part))
        elif part.get("type") == "text":
            if part.get("text"):
                blocks.append(dict(part))
        else:
            blocks.append(dict(part))
    return blocks


def _image(part: dict[str, Any]) -> dict[str, Any]:
    url = part.get("image_url")
    url = url.get("url", "") if isinstance(url, dict) else str(url or "")
    if url.startswith("data:") and ";base64," in url:
        media, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _mark_last(blocks: list[dict[str, Any]], mark: Any) -> None:
    if mark is not None and blocks:
        blocks[-1] = {**blocks[-1], "cache_control": mark}


def _arguments(text: Any) -> Any:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {"_invalid_arguments": text}
    return value if isinstance(value, dict) else {"_arguments": value}


def _turn(message: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(role, blocks) of one OpenAI-format message (role user or assistant)."""
    role = message.get("role")
    if role == "tool":
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.get("tool_call_id"),
            "content": message.get("content") or "",
        }
        blocks = [result]
        _mark_last(blocks, message.get("cache_control"))
        return "user", blocks
    blocks = _text_blocks(message.get("content"))
    if role == "assistant":
        # Thinking first, as received: the API checks the blocks and their signatures.
        thinking = [dict(b) for b in message.get("thinking_blocks") or () if isinstance(b, dict)]
        blocks = thinking + blocks
        for call in message.get("tool_calls") or ():
            fn = call.get("function") or {}
            use = {
                "type": "tool_use",
                "id": call.get("id"),
                "name": fn.get("name"),
                "input": _arguments(fn.get("arguments")),
            }
            if "cache_control" in call:
                use["cache_control"] = call["cache_control"]
            blocks.append(use)
        _mark_last(blocks, message.get("cache_control"))
        return "assistant", blocks
    _mark_last(blocks, message.get("cache_control"))
    return "user", blocks


def translate(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) in Anthropic's shape."""
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") in ("system", "developer"):
            blocks = _text_blocks(message.get("content"))
            _mark_last(blocks, message.get("cache_control"))
            system.extend(blocks)
            continue
        role, blocks = _turn(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            previous = turns[-1]["content"]
            if role == "user" and any(b.get("type") == "tool_result" for b in blocks):
                # tool_result blocks must open a user turn: put them before earlier text.
                results = [b for b in previous if b.get("type") == "tool_result"]
                others = [b for b in previous if b.get("type") != "tool_result"]
                turns[-1]["content"] = results + blocks + others
            else:
                previous.extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": "."}]})
    return system, turns


def tool(schema: dict[str, Any]) -> dict[str, Any]:
    fn = schema.get("function", schema)
    out: dict[str, Any] = {
        "name": fn.get("name"),
        "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
    }
    if fn.get("description"):
        out["description"] = fn["description"]
    if "cache_control" in schema:
        out["cache_control"] = schema["cache_control"]
    return out


def encode(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    max_tokens: int | None,
    *,
    stream: bool,
    extra: dict[str, Any],
) -> bytes:
    """The request body (in a worker thread)."""
    system, turns = translate(messages)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens or DEFAULT_MAX_TOKENS}
    if system:
        body["system"] = system
    body["messages"] = turns
    if tools:
        body["tools"] = [tool(t) for t in tools]
    body["stream"] = stream
    body.update(extra)
    return json.dumps(body).encode()


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


async def events(response: Any, clock: Clock) -> AsyncIterator[StreamEvent]:
    """The stream's events; raises for an error event or a stream without message_stop."""
    usage: dict[str, Any] = {}
    calls: dict[int, dict[str, Any]] = {}
    thinking: dict[int, dict[str, Any]] = {}
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
