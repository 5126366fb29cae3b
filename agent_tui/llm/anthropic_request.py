"""Anthropic's Messages request from the session's OpenAI-format wire dicts, reused turn by turn.

The translation does what litellm did with the wire dicts (with `cache_control` marks from
llm/cache.py): system messages become the `system` blocks, tool calls become `tool_use` blocks
and tool results `tool_result` blocks in a user turn, consecutive turns of one role merge (the
API wants strict alternation; the per-turn status note joins the last user turn), and every mark
stays on the block it was on.

A step's request is the last one's messages plus a few, so `EncodedTurns` keeps each translated
turn's JSON and redoes only the turns from the first message that is not the very same
read-only wire dict as last time (agent_tui/base/wire_dict.py) — and the turn before it, which a new
message of its role would still merge into. A 3 000-message request costs what its new messages
cost, not a whole translation (9-12 ms) every step.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any

from agent_tui.base.wire_dict import as_sent, same_as_sent

DEFAULT_MAX_TOKENS = 4096
_PLACEHOLDER_TURN: dict[str, Any] = {"role": "user", "content": [{"type": "text", "text": "."}]}
"""The API wants the first turn to be the user's (a compacted history may open with a reply)."""
_MESSAGES_SLOT = "\x00agent-tui: the messages go here\x00"


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


@dataclass
class Translation:
    """Messages translated so far: the system blocks, the turns, and for each turn the index of
    the message that opened it and how many system blocks came before that message."""

    system: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    system_before: list[int] = field(default_factory=list)

    def add(self, messages: list[dict[str, Any]], start: int = 0) -> None:
        """Translate `messages[start:]` onto what is here."""
        system, turns = self.system, self.turns
        for index in range(start, len(messages)):
            message = messages[index]
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
                self.starts.append(index)
                self.system_before.append(len(system))


def translate(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) in Anthropic's shape."""
    done = Translation()
    done.add(messages)
    turns = done.turns
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, dict(_PLACEHOLDER_TURN))
    return done.system, turns


@dataclass(frozen=True)
class Sent:
    """A request as translated: its messages (a read-only WireDict itself, any other dict as a
    shallow copy, so it is never the same object again), each turn's JSON (all but the first led
    by the array's `, `) and role, and where each turn opened."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    turns: list[bytes] = field(default_factory=list)
    first_role: str | None = None
    system: list[dict[str, Any]] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    system_before: list[int] = field(default_factory=list)


Plan = tuple[Sent, int]
"""What an encode may reuse: the request as sent and how many of its turns the next one repeats."""


class EncodedTurns:
    """The last request's turns as JSON, reused for the turns the next request repeats. The state
    is replaced whole after each request, and a plan carries the state it was made against, so a
    second request in flight (a summary during a step) can only reuse less."""

    def __init__(self) -> None:
        self._last = Sent()

    def plan(self, messages: list[dict[str, Any]]) -> Plan:
        """How many turns `messages` repeats: those that closed (the next turn opened) before the
        first message that is not the same as last time. Made on the loop: one identity scan."""
        last = self._last
        same = same_as_sent(messages, last.messages)
        return last, max(0, bisect.bisect_left(last.starts, same) - 1)

    def unreused(self, messages: list[dict[str, Any]], plan: Plan) -> int:
        """How many messages the plan leaves to translate."""
        last, reused = plan
        return len(messages) - (last.starts[reused] if reused else 0)

    def encode(
        self, messages: list[dict[str, Any]], plan: Plan | None = None
    ) -> tuple[list[Any], list[bytes]]:
        """(the system blocks, each turn's JSON after the first led by `, `)."""
        last, reused = plan or self.plan(messages)
        start = last.starts[reused] if reused else 0
        done = Translation(
            system=last.system[: last.system_before[reused]] if reused else [],
            starts=last.starts[:reused],
            system_before=last.system_before[:reused],
        )
        done.add(messages, start)
        dumps = json.dumps
        fresh = [b", " + dumps(turn).encode() for turn in done.turns]
        if not reused and fresh:
            fresh[0] = fresh[0][2:]
        turns = last.turns[:reused] + fresh
        first_role = last.first_role if reused else (done.turns[0]["role"] if done.turns else None)
        kept = as_sent(messages[start:])
        self._last = Sent(
            messages=last.messages[:start] + kept,
            turns=turns,
            first_role=first_role,
            system=done.system,
            starts=done.starts,
            system_before=done.system_before,
        )
        if first_role != "user":
            opener = dumps(_PLACEHOLDER_TURN).encode()
            turns = [opener, *(b", " + t for t in turns[:1]), *turns[1:]]
        return done.system, turns


def encode(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    max_tokens: int | None,
    *,
    stream: bool,
    extra: dict[str, Any],
    memo: EncodedTurns | None = None,
    plan: Plan | None = None,
) -> list[bytes]:
    """The request body, as chunks to send one after another (joined, they are the JSON)."""
    system, turns = (memo or EncodedTurns()).encode(messages, plan)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens or DEFAULT_MAX_TOKENS}
    if system:
        body["system"] = system
    body["messages"] = _MESSAGES_SLOT
    if tools:
        body["tools"] = [tool(t) for t in tools]
    body["stream"] = stream
    body.update(extra)
    text = json.dumps(body)
    slot = json.dumps(_MESSAGES_SLOT)
    if text.count(slot) != 1:  # `extra` set the messages, or a text holds the slot's very words
        body["messages"] = json.loads(b"[" + b"".join(turns) + b"]")
        return [json.dumps({**body, **extra}).encode()]
    before, _, after = text.partition(slot)
    return [before.encode() + b"[", *turns, b"]" + after.encode()]


def tool(schema: dict[str, Any]) -> dict[str, Any]:
    if "type" in schema and "function" not in schema:  # a server tool (web_search_20250305): as is
        return schema
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
