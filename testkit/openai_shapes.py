"""The JSON the fake server speaks: OpenAI's request checks, error bodies and reply shapes.

Kept apart from the HTTP plumbing so each rule reads on its own. The error texts copy OpenAI's
own wording, because litellm recognises errors by their text (a 400 only becomes a
ContextWindowExceededError when it says "This model's maximum context length is").
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import TYPE_CHECKING, Any

from testkit.tokenizer import count_openai, openai_prompt_tokens

if TYPE_CHECKING:
    from testkit.fake_openai import Reply

ROLES = ("system", "developer", "user", "assistant", "tool")


def _err(message: str, type_: str, param: str | None = None, code: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def error_body(status: int, *, message: str | None = None, model: str = "", path: str = "") -> dict:
    """OpenAI's error body for a status."""
    if status == 400:
        return _err(message or "Bad request.", "invalid_request_error")
    if status == 401:
        return _err(
            "Incorrect API key provided: sk-****. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            code="invalid_api_key",
        )
    if status == 404 and model:
        return _err(
            f"The model `{model}` does not exist or you do not have access to it.",
            "invalid_request_error",
            code="model_not_found",
        )
    if status == 404:
        return _err(f"Invalid URL ({path})", "invalid_request_error")
    if status == 429:
        return _err(
            "Rate limit reached for fake-model in organization org-fake on requests per min "
            "(RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.",
            "requests",
            code="rate_limit_exceeded",
        )
    if status == 503:
        return _err("The engine is currently overloaded, please try again later.", "server_error")
    return _err(
        message or "The server had an error while processing your request. Sorry about that!",
        "server_error",
    )


# -- request checks ----------------------------------------------------------------------------
def _invalid(message: str, param: str | None = None, code: str | None = None) -> dict:
    return _err(message, "invalid_request_error", param, code)


def shape_error(body: dict[str, Any]) -> dict | None:
    """The 400 for a structurally wrong request, or None."""
    for key in ("model", "messages"):
        if key not in body:
            return _invalid(f"Missing required parameter: '{key}'.", key, "missing_required_parameter")
    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        return _invalid("Invalid 'messages': empty array.", "messages", "empty_array")
    if body.get("stream_options") is not None and not body.get("stream"):
        return _invalid(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            return _invalid(f"Invalid value for 'messages[{i}].role'.", f"messages.[{i}].role")
        role = m["role"]
        for key in ("reasoning_content", "thinking_blocks"):
            if key in m:  # DeepSeek answers 400 to reasoning sent back; no OpenAI API takes blocks
                return _invalid(f"Unrecognized key in 'messages[{i}]': '{key}'.", f"messages.[{i}].{key}")
        if role == "assistant":
            if m.get("content") is None and not m.get("tool_calls"):
                return _invalid(
                    f"Invalid value for 'messages[{i}].content': expected a string, got null.",
                    f"messages.[{i}].content",
                )
            for j, call in enumerate(m.get("tool_calls") or ()):
                fn = call.get("function") if isinstance(call, dict) else None
                if (
                    not isinstance(fn, dict)
                    or not isinstance(call.get("id"), str)
                    or not isinstance(fn.get("name"), str)
                    or not isinstance(fn.get("arguments"), str)
                ):
                    param = f"messages.[{i}].tool_calls.[{j}]"
                    return _invalid(f"Invalid value for '{param}'.", param)
        elif not isinstance(m.get("content"), (str, list)):
            return _invalid(
                f"Invalid value for 'messages[{i}].content': expected a string.",
                f"messages.[{i}].content",
            )
        if role == "tool" and not isinstance(m.get("tool_call_id"), str):
            return _invalid(
                f"Missing required parameter: 'messages[{i}].tool_call_id'.",
                f"messages.[{i}].tool_call_id",
                "missing_required_parameter",
            )
    for i, tool in enumerate(body.get("tools") or ()):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type") != "function" or not isinstance(fn, dict) or not fn.get("name"):
            return _invalid(f"Invalid value for 'tools[{i}]'.", f"tools.[{i}]")
    return None


def pairing_error(messages: list[dict[str, Any]]) -> dict | None:
    """Every assistant tool_calls must be followed by exactly its tool results; no orphans."""
    pending: dict[str, int] = {}  # call id -> index of the assistant message
    for i, m in enumerate(messages):
        role = m["role"]
        if role == "tool":
            if m["tool_call_id"] in pending:
                del pending[m["tool_call_id"]]
                continue
            return _invalid(
                "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                "message with 'tool_calls'.",
                f"messages.[{i}].role",
            )
        if pending:
            return _missing_results(pending)
        if role == "assistant":
            for call in m.get("tool_calls") or ():
                pending[call["id"]] = i
    return _missing_results(pending) if pending else None


def _missing_results(pending: dict[str, int]) -> dict:
    index = next(iter(pending.values()))
    return _invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(pending),
        f"messages.[{index}].role",
    )


def window_error(window: int, prompt: int, max_tokens: int | None) -> dict | None:
    """OpenAI's context-length 400 when prompt (+ max_tokens) passes the window."""
    if max_tokens:
        if prompt + max_tokens <= window:
            return None
        message = (
            f"This model's maximum context length is {window} tokens. However, you requested "
            f"{prompt + max_tokens} tokens ({prompt} in the messages, {max_tokens} in the "
            "completion). Please reduce the length of the messages or completion."
        )
    else:
        if prompt <= window:
            return None
        message = (
            f"This model's maximum context length is {window} tokens. However, your messages "
            f"resulted in {prompt} tokens. Please reduce the length of the messages."
        )
    return _invalid(message, "messages", "context_length_exceeded")


# -- counting ----------------------------------------------------------------------------------
def count_prompt_tokens(body: dict[str, Any]) -> int:
    """The prompt's tokens as this server counts them: its own tokenizer configuration
    (testkit/tokenizer.py), not the project's TokenCounter."""
    return openai_prompt_tokens(body)


# -- replies -----------------------------------------------------------------------------------
def split_text(text: str, words_per_chunk: int) -> list[str]:
    """Pieces that join back to `text` exactly, each holding a few words.

    A run of identical pieces goes out as one: litellm aborts a stream that repeats the same
    chunk 100 times ("The model is repeating the same chunk"), and filler text in tests does.
    """
    if not text:
        return []
    words = re.split(r"(?<=\s)(?=\S)", text)
    n = max(1, words_per_chunk)
    pieces: list[str] = []
    previous = None
    for i in range(0, len(words), n):
        piece = "".join(words[i : i + n])
        if piece == previous:
            pieces[-1] += piece
        else:
            pieces.append(piece)
        previous = piece
    return pieces


def args_text(args: dict | str) -> str:
    """A scripted call's arguments as sent: a dict as JSON, a str verbatim (a truncated call)."""
    return args if isinstance(args, str) else json.dumps(args)


def invalid_arguments_error(messages: list[dict[str, Any]]) -> dict | None:
    """llama.cpp's 500 for a history whose tool-call arguments are not a JSON object: its
    server parses every call's arguments to render the chat template, and fails the request."""
    for m in messages:
        for call in m.get("tool_calls") or ():
            text = (call.get("function") or {}).get("arguments")
            try:
                value = json.loads(text) if isinstance(text, str) else None
            except ValueError:
                value = None
            if not isinstance(value, dict):
                return {
                    "error": {
                        "code": 500,
                        "message": f"Failed to parse tool call arguments as JSON: {str(text)[:80]}",
                        "type": "server_error",
                    }
                }
    return None


def alternation_error(messages: list[dict[str, Any]]) -> dict | None:
    """Gemma-like strict templates: after the system prompt, user and assistant turns alternate
    (tool results continue the assistant's turn): two user messages in a row, or two assistant
    messages in a row, are an error."""
    previous = None
    for m in messages:
        role = m["role"]
        if role == "system":
            continue
        if role in ("user", "assistant") and role == previous:
            return {
                "error": {
                    "code": 500,
                    "message": "Conversation roles must alternate user/assistant/user/assistant/...",
                    "type": "server_error",
                }
            }
        previous = role
    return None


def _split_args(arguments: str, parts: int = 3) -> list[str]:
    size = max(1, -(-len(arguments) // parts))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)] or [""]


def _usage(reply: Reply, calls: list[tuple[str, str, dict]], prompt: int) -> dict:
    if reply.usage is not None:
        return reply.usage
    count = count_openai
    reasoning = count(reply.reasoning) if reply.reasoning else 0
    completion = count(reply.text) + sum(count(n) + count(args_text(a)) for _, n, a in calls) + reasoning
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0},
    }


def _finish(reply: Reply, calls: list) -> str:
    return reply.finish_reason or ("tool_calls" if calls else "stop")


def _envelope(model: str, obj: str) -> dict:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": obj,
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_fake",
    }


def build_chunks(
    model: str, reply: Reply, calls: list[tuple[str, str, dict]], prompt: int, include_usage: bool
) -> list[dict]:
    """The SSE chunk objects of a streamed reply, in OpenAI's order."""
    base = _envelope(model, "chat.completion.chunk")
    deltas: list[dict] = [{"role": "assistant", "content": "", "refusal": None}]
    deltas += [{"reasoning_content": piece} for piece in split_text(reply.reasoning, reply.words_per_chunk)]
    deltas += [{"content": piece} for piece in split_text(reply.text, reply.words_per_chunk)]
    for index, (call_id, name, args) in enumerate(calls):
        head = {"index": index, "id": call_id, "type": "function"}
        head["function"] = {"name": name, "arguments": ""}
        deltas.append({"tool_calls": [head]})
        for piece in _split_args(args_text(args)):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    chunks = []
    for delta in deltas:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}
        chunks.append({**base, "choices": [choice]})
    final = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": _finish(reply, calls)}
    chunks.append({**base, "choices": [final]})
    if include_usage:
        for chunk in chunks:
            chunk["usage"] = None
        chunks.append({**base, "choices": [], "usage": _usage(reply, calls, prompt)})
    return chunks


def build_completion(model: str, reply: Reply, calls: list[tuple[str, str, dict]], prompt: int) -> dict:
    """The non-streamed chat.completion object."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": n, "arguments": args_text(a)}}
            for cid, n, a in calls
        ]
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(reply, calls)}
    return {**_envelope(model, "chat.completion"), "choices": [choice], "usage": _usage(reply, calls, prompt)}


def with_citations(chunks: list[dict], reply: Any) -> list[dict]:
    """The chunks with the sources of `reply.web_searches` as OpenAI's search models stream them:
    one delta of `url_citation` annotations over the text, before the finishing chunk."""
    sources = [source for _, found in reply.web_searches for source in found]
    end = len(reply.text)
    notes = [
        {"type": "url_citation", "url_citation": {"start_index": 0, "end_index": end, "title": t, "url": u}}
        for t, u in sources
    ]
    at = next(i for i, c in enumerate(chunks) if c["choices"] and c["choices"][0]["finish_reason"])
    head = chunks[at]
    note = {
        **head,
        "choices": [{"index": 0, "delta": {"annotations": notes}, "logprobs": None, "finish_reason": None}],
    }
    return [*chunks[:at], note, *chunks[at:]]
