"""Both strict fake servers behind one switch, for tests that must hold on either wire (OpenAI's
chat completions, Anthropic's messages): the server, the config a user of it writes, and how to
tell a request that answers a tool call on each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from testkit.fake_anthropic import FakeAnthropic
from testkit.fake_openai import FakeOpenAI, Reply

WIRES = ("openai", "anthropic")
KEY = "sk-ant-test-dummy"
"""The Anthropic server's key (set ANTHROPIC_API_KEY to it)."""
WINDOW = 16_000


def answers_a_tool(body: dict) -> bool:
    """The request ends with a tool's result (OpenAI: a tool message; Anthropic: a user
    message holding tool_result blocks)."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return True
    content = last.get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def wire_config(wire: str, url: str, db: Path, window: int = WINDOW) -> Any:
    model = "openai/fake-model" if wire == "openai" else "anthropic/claude-sonnet-4-5"
    overrides = {
        "model": {"name": model, "api_base": url, "context_window": window},
        "store": {"db": str(db)},
    }
    return load_config(overrides=overrides, cwd=db.parent, env={}, rule_words=SHIPPED_WORDS).config


def wire_server(wire: str, responder: Callable[[dict], Reply], window: int = WINDOW) -> Any:
    if wire == "openai":
        return FakeOpenAI(window=window, responder=responder)
    return FakeAnthropic(window=window, api_key=KEY, responder=responder)
