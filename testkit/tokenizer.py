"""The fake servers' own token counting — deliberately not agent_tui.base.tokens.

A real provider counts with its own tokenizer and its own per-message framing, and the client
only estimates. If the fake servers counted with the project's `TokenCounter`, every budget test
would agree with the code by construction. So they count the way OpenAI's cookbook does, with a
different encoding than the client's default (`o200k_base`, where `TokenCounter` uses
`cl100k_base` for unknown models), and different framing: 3 tokens a message, 1 for a name, 3
to prime the reply, tool calls and tool schemas counted as the JSON they are sent as. The fake
Anthropic server counts with Anthropic's published Claude tokenizer (shipped with litellm).

Nothing here imports agent_tui; a test that needs the client and the server to agree has to get
there through what the server reports (usage, context-length errors), as against a real provider.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ENCODING = "o200k_base"
PER_MESSAGE = 3
PER_NAME = 1
REPLY_PRIMING = 3


def _litellm_tokenizers() -> Path | None:
    """litellm ships tiktoken's BPE files and Anthropic's tokenizer (no download needed)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


@cache
def _tiktoken() -> Callable[[str], list[int]]:
    folder = _litellm_tokenizers()
    if folder is not None:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder))
    import tiktoken

    return tiktoken.get_encoding(ENCODING).encode_ordinary


@cache
def _claude() -> Callable[[str], int]:
    folder = _litellm_tokenizers()
    path = folder / "anthropic_tokenizer.json" if folder is not None else None
    if path is None or not path.exists():
        encode = _tiktoken()
        return lambda text: len(encode(text))
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    return lambda text: len(tokenizer.encode(text).ids)


def count_openai(text: str | None) -> int:
    """Tokens of `text` for the fake OpenAI server (o200k_base)."""
    return len(_tiktoken()(text)) if text else 0


def count_claude(text: str | None) -> int:
    """Tokens of `text` for the fake Anthropic server (Claude's tokenizer)."""
    return _claude()(text) if text else 0


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def openai_prompt_tokens(body: dict[str, Any]) -> int:
    """A chat-completions request's prompt tokens, counted the cookbook's way."""
    total = REPLY_PRIMING
    for message in body.get("messages") or ():
        total += PER_MESSAGE + count_openai(_text(message.get("content")))
        if message.get("tool_calls"):
            calls = [call.get("function") or {} for call in message["tool_calls"]]
            total += count_openai(json.dumps(calls, separators=(",", ":")))
        if message.get("name"):
            total += PER_NAME + count_openai(message["name"])
    if body.get("tools"):
        total += count_openai(json.dumps(body["tools"], separators=(",", ":")))
    return total
