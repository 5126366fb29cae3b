"""What the provider's searches cost (issue 45, web search): each search Anthropic runs is billed
apart from tokens (`usage.server_tool_use.web_search_requests` × its per-search price, read
from litellm's price map by llm/cost.py). The reply's and the session's cost include it, `/cost` shows it, and
`--max-budget-usd` counts it; a search whose price is not known makes the cost unknown, never 0.
Through the real headless `run` against the local Anthropic server, with token prices the user
declared ($1 / $2 per million)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.base.messages import TokenUsage
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.llm.cost import Prices, cost_of, search_price
from agent_tui.runtime import paths
from testkit.fake_anthropic import FakeAnthropic
from testkit.fake_openai import Reply
from tests.support.cli import run_cli

KEY = "sk-ant-test-dummy"
SOURCES = [("Textual 1.0 released", "https://textual.example/blog/1-0")]
TWO = [("textual release", SOURCES), ("textual changelog", SOURCES)]


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY) as fake:
        yield fake


@pytest.fixture(autouse=True)
def search_on_and_prices(tmp_path) -> None:
    file = paths.user_config_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("[web]\nsearch = true\n")
    (tmp_path / ".agent-tui.toml").write_text(
        "[model]\ninput_price_per_mtok = 1.0\noutput_price_per_mtok = 2.0\n"
    )


def run(server: FakeAnthropic, cwd: Path, *args: str) -> tuple[int, list[dict], str]:
    full = ["run", *args, "--yes", "--sandbox", "off", "--trust", "--model", "anthropic/claude-sonnet-4-5"]
    full += ["--api-base", server.base_url, "--db", str(cwd / "s.db")]
    done = run_cli(full, cwd)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, lines, done.stdout + done.stderr


def test_each_search_is_priced_in_the_reply_and_the_session(server, tmp_path):
    server.enqueue(Reply(text="Textual 1.0 is out.", web_searches=TWO))
    code, events, out = run(server, tmp_path, "what is new?", "--json")
    assert code == 0, out
    usage = [e for e in events if e["type"] == "usage"][0]
    assert usage["usage"]["web_searches"] == 2
    assert 0.02 <= usage["cost"] < 0.03  # two searches at $0.01, and the tokens at $1 / $2 per million
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert all("$0.01 a search" in e["summary"] for e in finished)

    code, _, out = run(server, tmp_path, "/cost", "--continue")
    assert code == 0, out
    assert "$0.02" in out and "for the whole session" in out


def test_the_budget_counts_the_searches(server, tmp_path):
    server.enqueue(
        Reply(web_searches=TWO, tool_calls=[("glob", {"pattern": "*"})]),
        Reply(text="never asked for"),
    )
    code, _, out = run(server, tmp_path, "what is new?", "--max-budget-usd", "0.015")
    assert code == 3, out
    assert "stopped: --max-budget-usd 0.015 reached (spent $0.02" in out
    assert len(server.requests) == 1


def test_a_search_without_a_known_price_makes_the_cost_unknown():
    prices = Prices(input=1e-6, output=2e-6, cache_read=1e-6, cache_creation=1e-6)
    assert search_price("anthropic/claude-sonnet-4-5") == 0.01
    assert search_price("openai/fake-model") is None
    searched = TokenUsage(input=10, output=5, web_searches=1)
    assert cost_of(searched, prices, search_price("openai/fake-model")) is None
    assert cost_of(TokenUsage(input=10, output=5), prices, None) is not None  # no search, no price needed
    assert cost_of(searched, prices, 0.01) == pytest.approx(10e-6 + 10e-6 + 0.01)


async def test_cost_shows_the_searches_of_this_run(server, tmp_path, monkeypatch):
    """`/cost` in the app that ran them: a Searches row with their count and price beside the
    session's cost, which includes them."""
    from agent_tui.compose.factory import build_services
    from agent_tui.config import load_config
    from agent_tui.core.command_effects import cost

    overrides = {
        "model": {
            "name": "anthropic/claude-sonnet-4-5",
            "api_base": server.base_url,
            "input_price_per_mtok": 1.0,
            "output_price_per_mtok": 2.0,
        },
        "store": {"db": str(tmp_path / "c.db")},
        "web": {"search": True},
        "sandbox": {"mode": "off"},
    }
    config = load_config(
        overrides=overrides, cwd=tmp_path, env={"ANTHROPIC_API_KEY": KEY}, rule_words=SHIPPED_WORDS
    ).config
    services = await build_services(config, workspace=tmp_path)
    try:
        session = await services.new_session()
        server.enqueue(Reply(text="Textual 1.0 is out.", web_searches=TWO))
        async for _event in session.run_turn("what is new?"):
            pass

        class Host:
            pass

        host = Host()
        host.session = session  # type: ignore[attr-defined]
        rows = dict((await cost(host, "")).rows)  # type: ignore[arg-type]
        assert rows["Searches"] == "2 web searches by the provider · $0.0200"
        assert rows["Cost"].startswith("$0.02") and rows["Cost"].endswith("for the whole session")
        await session.close()
    finally:
        await services.close()


def test_claude_codes_result_counts_the_searches(server, tmp_path):
    server.enqueue(Reply(text="Textual 1.0 is out.", web_searches=TWO))
    code, lines, out = run(server, tmp_path, "what is new?", "--output-format", "json")
    assert code == 0, out
    result = lines[-1]
    assert result["usage"]["server_tool_use"] == {"web_search_requests": 2}
    assert result["total_cost_usd"] >= 0.02
