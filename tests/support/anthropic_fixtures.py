"""Fixtures for tests that drive the real loop against the local Anthropic server with extended
thinking: the same factory the CLI uses, a temp database, `anthropic/…` behind the fake's URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.compose.factory import AppServices, build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from testkit.fake_anthropic import FakeAnthropic

MODEL = "anthropic/claude-sonnet-4-5"
KEY = "sk-ant-test-dummy"


@pytest.fixture
def anthropic(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY) as server:
        yield server


async def thinking_services(
    server: FakeAnthropic, db: Path, workspace: Path, *, budget: int = 2048, **sections: Any
) -> AppServices:
    """Services for `anthropic/claude-sonnet-4-5` on `server`, thinking with `budget` tokens."""
    overrides: dict[str, dict[str, Any]] = {
        "model": {"name": MODEL, "api_base": server.base_url, "thinking_budget_tokens": budget},
        "store": {"db": str(db)},
    }
    for name, values in sections.items():
        overrides.setdefault(name, {}).update(values)
    config = load_config(overrides=overrides, cwd=db.parent, env={}, rule_words=SHIPPED_WORDS).config
    return await build_services(config, workspace=workspace)


def assistant_turns(body: dict) -> list[list[dict]]:
    """The content blocks of every assistant message of a request, in order."""
    return [m["content"] for m in body["messages"] if m["role"] == "assistant"]


def block_types(body: dict) -> list[list[str]]:
    return [[b["type"] for b in content] for content in assistant_turns(body)]
