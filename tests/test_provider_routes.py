"""Which path a model takes (direct HTTP or litellm), decided and sized without importing litellm."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from agent_tui.llm import catalog
from agent_tui.llm.model_info import lookup
from agent_tui.llm.routes import route_for
from testkit import FakeOpenAI, Reply


@pytest.mark.parametrize(
    ("model", "api_base", "wire", "sent", "url"),
    [
        ("openai/gpt-4o", None, "openai", "gpt-4o", "https://api.openai.com/v1/chat/completions"),
        ("gpt-4o", None, "openai", "gpt-4o", "https://api.openai.com/v1/chat/completions"),
        (
            "openai/qwen2.5:7b",
            "http://localhost:11434/v1",
            "openai",
            "qwen2.5:7b",
            "http://localhost:11434/v1/chat/completions",
        ),
        (
            "llama3",
            "http://localhost:8080/v1/",
            "openai",
            "llama3",
            "http://localhost:8080/v1/chat/completions",
        ),
        (
            "Qwen/Qwen2.5-7B",
            "http://vllm:8000/v1",
            "openai",
            "Qwen/Qwen2.5-7B",
            "http://vllm:8000/v1/chat/completions",
        ),
        (
            "openrouter/meta-llama/llama-3-70b",
            None,
            "openai",
            "meta-llama/llama-3-70b",
            "https://openrouter.ai/api/v1/chat/completions",
        ),
        (
            "anthropic/claude-sonnet-4-5",
            None,
            "anthropic",
            "claude-sonnet-4-5",
            "https://api.anthropic.com/v1/messages",
        ),
        (
            "claude-sonnet-4-5",
            "http://127.0.0.1:9/",
            "anthropic",
            "claude-sonnet-4-5",
            "http://127.0.0.1:9/v1/messages",
        ),
        ("ollama/llama3", "http://localhost:11434", "litellm", "ollama/llama3", ""),
        ("gemini/gemini-2.0-flash", None, "litellm", "gemini/gemini-2.0-flash", ""),
    ],
)
def test_route(model, api_base, wire, sent, url):
    """OpenAI-compatible and Anthropic names go direct; other providers through litellm."""
    route = route_for(model, api_base)
    assert (route.wire, route.model, route.url) == (wire, sent, url)


def test_transport_litellm_sends_everything_through_litellm():
    """`[provider] transport = "litellm"` is the old path for every model."""
    assert route_for("openai/gpt-4o", None, "litellm").wire == "litellm"


def test_windows_and_prices_come_from_the_bundled_map():
    """litellm's own figures, read as data: the window, the reply limit, cached-input prices."""
    info = lookup("anthropic/claude-sonnet-4-5")
    assert info is not None and info.context_window == 200_000 and info.max_output_tokens
    assert info.cache_read_cost_per_token is not None
    assert lookup("openai/some-local-model") is None
    assert catalog.provider_of("claude-sonnet-4-5") == "anthropic"
    assert catalog.provider_of("ollama/llama3") == "ollama"
    assert catalog.provider_of("no-such-model-xyz") is None


def test_a_whole_turn_never_imports_litellm(tmp_path):
    """Limits, the session, the request, usage and cost for an OpenAI-compatible model: no litellm."""
    script = textwrap.dedent(
        """
        import asyncio, sys
        from agent_tui.config import load_config
        from agent_tui.compose.factory import build_services
        from agent_tui.compose.rule_words import SHIPPED_WORDS

        async def main(base, db):
            overrides = {"model": {"name": "openai/fake-model", "api_base": base, "context_window": 32000},
                         "store": {"db": db}}
            services = await build_services(load_config(overrides=overrides, env={}, rule_words=SHIPPED_WORDS).config)
            session = await services.new_session()
            kinds = [type(e).__name__ async for e in session.run_turn("hi")]
            await services.close()
            print("TurnFinished" in kinds, "litellm" in sys.modules)

        asyncio.run(main(sys.argv[1], sys.argv[2]))
        """
    )
    with FakeOpenAI() as server:
        server.enqueue(Reply(text="hello"))
        done = subprocess.run(
            [sys.executable, "-c", script, server.base_url, str(tmp_path / "t.db")],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


class TestWireFormats:
    def test_every_wire_has_its_format_object(self):
        """Each way a route can be reached names one format object, chosen once per route; the
        Anthropic conventions (cache marks, thinking budget) follow the provider behind litellm."""
        import typing

        from agent_tui.llm.routes import Route, Wire
        from agent_tui.llm.wire_format import DirectFormat, format_of

        for wire in typing.get_args(Wire):
            chosen = format_of(Route(wire, None, "m", "", None))
            assert chosen.name == wire
            assert isinstance(chosen, DirectFormat) == (wire != "litellm")
        behind = format_of(route_for("anthropic/claude-sonnet-4-5", None, "litellm"))
        assert behind.cache_marks and behind.thinking_budget
        assert not format_of(route_for("openai/gpt-4o", None, "litellm")).cache_marks
        assert format_of(route_for("anthropic/claude-sonnet-4-5", None)).streams_completions
