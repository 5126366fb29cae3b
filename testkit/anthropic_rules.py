"""The Messages API's conversation rules and extended thinking, for the local Anthropic server.

Split from fake_anthropic.py (the server and its cache model) so each stays readable. What the
real API checks, and this server checks the same way with the same wording:
- roles alternate from `user`; every tool_use is answered first thing in the next user turn;
- with `thinking` enabled: `budget_tokens` ≥ 1 024 and below `max_tokens`; a request continuing
  a tool-use turn must send that turn's first assistant message starting with its thinking (or
  redacted thinking) block — the turn runs from the last user message that is not tool results;
- server tool blocks sent back pair up (a search's result after its use) with their sealed
  `encrypted_content` unchanged;
- every thinking block sent back carries the signature the server gave it: the signature is an
  HMAC of the text with the server's secret, so an altered text or signature is caught (a
  redacted block's opaque data is sealed the same way).
Replies think only when the request enabled thinking, as the real model does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from testkit.fake_openai import Reply
from testkit.tokenizer import count_claude

SECRET = b"fake-anthropic-thinking-secret"
DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
MISSING_THINKING = (
    "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. "
    "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
    "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include "
    "thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please "
    f"consult our documentation at {DOCS}"
)


def word_pieces(text: str, per_chunk: int) -> list[str]:
    """`text` as streamed deltas of a few words each (they join back to it)."""
    words = text.split(" ")
    step = max(1, per_chunk)
    return [
        " ".join(words[start : start + step]) + (" " if start + step < len(words) else "")
        for start in range(0, len(words), step)
    ]


def sign(text: str) -> str:
    """The signature the server gives a thinking block with this text."""
    return base64.b64encode(hmac.new(SECRET, text.encode(), hashlib.sha256).digest() * 3).decode()


def seal(payload: str) -> str:
    """A redacted block's data: opaque to the client, checkable by the server."""
    body = base64.b64encode(payload.encode()).decode()
    return f"{body}.{sign(payload)[:43]}"


def _unsealed(data: Any) -> bool:
    if not isinstance(data, str) or "." not in data:
        return False
    body, _, mark = data.rpartition(".")
    try:
        payload = base64.b64decode(body, validate=True).decode()
    except ValueError:
        return False
    return hmac.compare_digest(sign(payload)[:43], mark)


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content or [] if isinstance(p, dict)]


def _has_results(message: dict[str, Any]) -> bool:
    return message.get("role") == "user" and any(p.get("type") == "tool_result" for p in _parts(message))


def conversation_error(messages: list[dict]) -> str | None:
    """Roles alternate from `user`; every tool_use is answered first thing in the next turn."""
    if not messages:
        return "messages: at least one message is required"
    expected = "user"
    pending: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role != expected:
            return f"messages.{index}.role: roles must alternate, starting with user"
        parts = _parts(message)
        if not parts:
            return f"messages.{index}: content must be non-empty"
        answered: set[str] = set()
        seen_other = False
        for position, part in enumerate(parts):
            kind = part.get("type")
            if kind == "text" and not part.get("text"):
                return f"messages.{index}.content.{position}: text content blocks must be non-empty"
            if kind == "tool_result":
                if seen_other:
                    return (
                        f"messages.{index}.content.{position}: tool_result blocks must come "
                        "first in the content"
                    )
                answered.add(part.get("tool_use_id"))
            else:
                seen_other = True
        if pending and answered != pending:
            return (
                f"messages.{index}: tool_use ids were found without tool_result blocks "
                f"immediately after: {', '.join(sorted(pending - answered))}"
            )
        pending = {p.get("id") for p in parts if p.get("type") == "tool_use"}
        expected = "assistant" if role == "user" else "user"
    return None


def search_error(body: dict[str, Any]) -> str | None:
    """Server tool blocks sent back: only in a request that offers the search tool (as a
    tool_use needs its tool defined); each `web_search_tool_result` follows, in the same
    assistant message, the `server_tool_use` it answers, and each result's `encrypted_content` is
    the one the server sealed (the API decrypts it to show the model the page again)."""
    messages = body["messages"]
    offered = any(str(t.get("type", "")).startswith("web_search_") for t in body.get("tools") or ())
    for index, message in enumerate(messages):
        used: set[str] = set()
        for position, part in enumerate(_parts(message)):
            kind = part.get("type")
            if kind in ("server_tool_use", "web_search_tool_result") and message.get("role") != "assistant":
                return f"messages.{index}.content.{position}: {kind} blocks belong to assistant messages"
            if kind == "server_tool_use":
                if not offered:
                    return f"messages.{index}.content.{position}: server_tool_use without the web_search tool in tools"
                used.add(str(part.get("id")))
            elif kind == "web_search_tool_result":
                if part.get("tool_use_id") not in used:
                    return (
                        f"messages.{index}.content.{position}: web_search_tool_result block(s) "
                        f"without a preceding server_tool_use block: {part.get('tool_use_id')}"
                    )
                content = part.get("content")
                for result in content if isinstance(content, list) else ():
                    if not _unsealed(result.get("encrypted_content")):
                        return f"messages.{index}.content.{position}: invalid encrypted_content"
    return None


def thinking_enabled(body: dict[str, Any]) -> bool:
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") == "enabled"


def thinking_error(body: dict[str, Any]) -> str | None:
    """What the API answers (400) about thinking in this request, or None."""
    messages = body["messages"]
    for index, message in enumerate(messages):
        for position, part in enumerate(_parts(message)):
            kind = part.get("type")
            where = f"messages.{index}.content.{position}"
            if kind == "thinking" and (
                not isinstance(part.get("thinking"), str)
                or not hmac.compare_digest(str(part.get("signature") or ""), sign(part["thinking"]))
            ):
                return f"{where}: Invalid `signature` in `thinking` block"
            if kind == "redacted_thinking" and not _unsealed(part.get("data")):
                return f"{where}: Invalid `data` in `redacted_thinking` block"
    if "thinking" not in body:
        return None
    thinking = body["thinking"]
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "disabled"):
        return "thinking: Input tag does not match any of the expected tags: 'enabled', 'disabled'"
    if thinking["type"] == "disabled":
        return None
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int):
        return "thinking.enabled.budget_tokens: Field required"
    if budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    if body["max_tokens"] <= budget:
        return (
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            f"documentation at {DOCS}#max-tokens-and-context-window-size"
        )
    start = turn_start(messages)
    if start is not None:
        first = _parts(messages[start])[0].get("type")
        if first not in ("thinking", "redacted_thinking"):
            return MISSING_THINKING.format(index=start, found=first)
    return None


def turn_start(messages: list[dict[str, Any]]) -> int | None:
    """The first assistant message of the tool-use turn the request continues (None when the
    last message is not tool results)."""
    if len(messages) < 2 or not _has_results(messages[-1]):
        return None
    index = len(messages) - 2
    while index >= 2 and _has_results(messages[index - 1]):
        index -= 2
    return index


def thinking_events(reply: Reply, index: int) -> tuple[list[dict], int, int]:
    """The reply's thinking blocks as stream events: (events, output tokens, next index).
    Text arrives in thinking_delta pieces, then the signature in one signature_delta."""
    events: list[dict] = []
    output = 0
    if reply.reasoning:
        events.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            }
        )
        for piece in word_pieces(reply.reasoning, reply.words_per_chunk):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": piece},
                }
            )
        signature = {"type": "signature_delta", "signature": sign(reply.reasoning)}
        events.append({"type": "content_block_delta", "index": index, "delta": signature})
        events.append({"type": "content_block_stop", "index": index})
        output += count_claude(reply.reasoning)
        index += 1
    for payload in reply.redacted_thinking:
        block = {"type": "redacted_thinking", "data": seal(payload)}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
        output += count_claude(payload)
        index += 1
    return events, output, index
