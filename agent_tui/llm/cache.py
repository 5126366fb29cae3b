"""Where Anthropic's prompt-cache breakpoints go, as `cache_control` marks litellm passes on.

Anthropic caches the request prefix up to each block marked `cache_control` (tools → system →
messages), at most 4 marks a request. A mark only pays when the bytes before it come back
identical in the next request, so the placement follows what stays stable:

- one mark per cache tier of the system prompt (the builder makes at most 2: base + rules, then
  memories, skills and the deferral note), caching the tool schemas with them;
- one on the newest message, so the next step or turn reads the whole conversation from cache;
- one on the message that was newest in the previous request, if it is still there: Anthropic
  looks back only ~20 blocks from a mark for an earlier cache entry, and one step with many tool
  calls adds more than that.

The per-turn status note would break that prefix if it stayed in the system prompt (the system
comes before every message), so it travels after the newest mark as a trailing user text,
which litellm merges into the last user turn.

Pure functions over the OpenAI-format dicts litellm takes; no litellm import. The wire dicts of
the history are shared with the assembler's cache, so a marked message is always a copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
"""Anthropic rejects a request with more `cache_control` blocks than this."""


def system_message(cached_blocks: Sequence[str]) -> dict[str, Any]:
    """The system message as text blocks, each ending with a breakpoint."""
    return {
        "role": "system",
        "content": [
            {"type": "text", "text": text, "cache_control": dict(EPHEMERAL)} for text in cached_blocks if text
        ],
    }


def mark(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of one wire message with a breakpoint at its end."""
    out = dict(message)
    calls = out.get("tool_calls")
    if out.get("role") == "assistant" and calls:
        # litellm sends the text first and the tool_use blocks after: the last call ends it.
        calls = [dict(call) for call in calls]
        calls[-1]["cache_control"] = dict(EPHEMERAL)
        out["tool_calls"] = calls
    else:
        out["cache_control"] = dict(EPHEMERAL)
    return out


def count_marks(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> int:
    """How many `cache_control` marks a request carries (for tests and the 4-mark guard)."""
    n = sum(1 for tool in tools if "cache_control" in tool)
    for message in messages:
        if "cache_control" in message:
            n += 1
        content = message.get("content")
        if isinstance(content, list):
            n += sum(1 for part in content if isinstance(part, dict) and "cache_control" in part)
        n += sum(1 for call in message.get("tool_calls") or () if "cache_control" in call)
    return n


def cached_request(
    cached_blocks: Sequence[str],
    conversation: Sequence[dict[str, Any]],
    anchors: Sequence[int] = (),
    trailing: str = "",
) -> list[dict[str, Any]]:
    """The whole message list with breakpoints.

    `cached_blocks`: the system prompt's cache tiers; `conversation`: the wire messages after it;
    `anchors`: indices into `conversation` to mark, most important first (the newest message,
    then the previous request's newest); `trailing`: text sent after every mark (the status note).
    Marks past `MAX_BREAKPOINTS` are dropped, the least important first.
    """
    blocks = [b for b in cached_blocks if b][: MAX_BREAKPOINTS - 1]
    room = MAX_BREAKPOINTS - len(blocks)
    marked: list[int] = []
    for index in anchors:
        if len(marked) >= room:
            break
        if 0 <= index < len(conversation) and index not in marked:
            marked.append(index)
    messages: list[dict[str, Any]] = [system_message(blocks)] if blocks else []
    for index, message in enumerate(conversation):
        messages.append(mark(message) if index in marked else message)
    if trailing:
        messages.append({"role": "user", "content": trailing})
    return messages
