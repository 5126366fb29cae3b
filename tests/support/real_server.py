"""What the real-server tests share: the model's settings, the config a user would write, the
server's own tokenizer, and pasted texts on which tiktoken is far off."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import Config, load_config
from testkit.llama_server import LlamaServer

TEMPLATE = Path(__file__).resolve().parents[1] / "real_server" / "chat_template.jinja"
WINDOW = 4096
"""The server's n_ctx, and the `[model] context_window` the tests configure."""
REPLY_TOKENS = 32
"""`[model] max_output_tokens`: the loop asks for this many tokens per reply, so replies stay
short and the whole folder runs in a few minutes on two cores."""
MODEL = "openai/gemma-3-270m"
"""A name litellm does not know: the window comes from config, as for any local model."""
SERVER_SETTINGS = {"sampling.seed": 1234, "sampling.temp": 0.0}
"""Greedy decoding with a fixed seed: the same prompt gives the same reply in every run. (The
server's own n_predict is only a default, not a cap, so max_tokens alone bounds a reply; the
base model always fills it.)"""
QUIET = {"warn_at": 0.95}
"""`[agent]` settings for long sessions. From warn_at on, the status note sits in the system
prompt and its percentage changes every turn, so every request re-sends the whole conversation
past llama.cpp's prefix cache (minutes on two cores). With warn_at at the compaction trigger the
prefix stays stable; the budget's figures are the same either way."""


def real_config(server: LlamaServer, db: Path, **sections: Any) -> Config:
    """The config a user of a local llama.cpp server would write, pointed at the test server."""
    overrides: dict[str, dict[str, Any]] = {
        "model": {
            "name": MODEL,
            "api_base": server.base_url,
            "context_window": WINDOW,
            "max_output_tokens": REPLY_TOKENS,
        },
        "store": {"db": str(db)},
    }
    for name, values in sections.items():
        overrides.setdefault(name, {}).update(values)
    return load_config(overrides=overrides, cwd=db.parent, env={}, rule_words=SHIPPED_WORDS).config


def server_json(server: LlamaServer, path: str, body: dict) -> dict:
    """POST to one of llama.cpp's own endpoints (/tokenize, /apply-template)."""
    request = urllib.request.Request(
        server.address + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def gemma_tokens(server: LlamaServer, text: str) -> int:
    """How many tokens the model's own tokenizer makes of `text`."""
    return len(server_json(server, "/tokenize", {"content": text})["tokens"])


def rendered_tokens(server: LlamaServer, messages: list[dict], tools: list[dict] | None = None) -> int:
    """Tokens of the prompt the server builds from a chat request (template applied)."""
    body: dict[str, Any] = {"messages": messages}
    if tools:
        body["tools"] = tools
    prompt = server_json(server, "/apply-template", body)["prompt"]
    # llama.cpp strips the template's BOS from the rendered text and adds it when tokenizing.
    body = {"content": prompt, "add_special": True, "parse_special": True}
    return len(server_json(server, "/tokenize", body)["tokens"])


def numeric_paste(tokens: int, seed: int = 0) -> str:
    """About `tokens` Gemma tokens of pasted numbers (a CSV dump, a log of ids).

    Gemma splits numbers into single digits while tiktoken groups three, so tiktoken
    undercounts this by more than half: the case where an uncalibrated budget overflows."""
    numbers = max(tokens // 7, 1)  # six digits and a separator ≈ 7 Gemma tokens
    values = [f"{(seed * 7919 + i * 104729) % 1_000_000:06d}" for i in range(numbers)]
    return "\n".join(",".join(values[i : i + 10]) for i in range(0, len(values), 10))


_THAI = (
    "ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอนหรือวรรณยุกต์เช่นเดียวกับภาษาจีน "
    "และออกเสียงแยกคำต่อคำ การจัดการบริบทเป็นสิ่งสำคัญสำหรับเอเจนต์ "
)


def thai_paste(tokens: int) -> str:
    """About `tokens` Gemma tokens of Thai prose, which tiktoken overcounts about threefold."""
    return (_THAI * (tokens * 7 // (2 * len(_THAI)) + 1))[: tokens * 7 // 2]


def code_paste(tokens: int) -> str:
    """About `tokens` Gemma tokens of this repository's Python (tiktoken is close on code)."""
    source = (Path(__file__).resolve().parents[2] / "agent_tui" / "base" / "tokens.py").read_text()
    chars = tokens * 24 // 7  # ≈ 3.4 characters per Gemma token on this file
    return (source * (chars // len(source) + 1))[:chars]


def paste(kind: str, tokens: int, seed: int = 0) -> str:
    """A pasted input of one kind: "numbers", "thai" or "code"."""
    if kind == "numbers":
        return numeric_paste(tokens, seed)
    if kind == "thai":
        return thai_paste(tokens)
    return code_paste(tokens)


def thinking_template() -> str:
    """The test template as a reasoning model's (Qwen3's shape): the generation prompt opens a
    `<think>` block and assistant messages render their `reasoning_content` inside one. llama.cpp
    reads the reasoning markers off the template, so with its reasoning parser on (deepseek, the
    default) everything the model writes before `</think>` streams as `reasoning_content` — and a
    request that sent reasoning back would show it in the prompt."""
    text = TEMPLATE.read_text()
    generation = "{{- '<start_of_turn>model\\n' -}}\n{%- endif -%}"
    reply = "    {{- '<start_of_turn>model\\n' -}}\n    {%- if message.content -%}"
    assert text.count(generation) == 1 and text.count(reply) == 1, "chat_template.jinja changed"
    text = text.replace(generation, "{{- '<start_of_turn>model\\n<think>\\n' -}}\n{%- endif -%}")
    return text.replace(
        reply,
        "    {{- '<start_of_turn>model\\n' -}}\n"
        "    {%- if message.reasoning_content -%}"
        "{{- '<think>\\n' + message.reasoning_content + '\\n</think>\\n' -}}{%- endif -%}\n"
        "    {%- if message.content -%}",
    )


def log_paste(tokens: int, seed: int = 0) -> str:
    """About `tokens` Gemma tokens of a pasted service log: timestamps, request ids, user ids,
    latencies — the text on which a tiktoken budget undercounts a digit-splitting tokenizer."""
    lines = []
    for i in range(max(tokens // 50, 1)):  # one line ≈ 50 Gemma tokens
        n = seed * 7919 + i * 104729
        lines.append(
            f"2026-11-{n % 28 + 1:02d}T{n % 24:02d}:{n % 60:02d}:{(n // 7) % 60:02d}.{n % 1000:03d}Z "
            f"req={n * 2654435761 % 16**8:08x} user={n % 100000:05d} ms={n % 997} status={200 + n % 3 * 100}"
        )
    return "\n".join(lines)
