"""The first request of an Anthropic session is counted by Anthropic before it is sent
(`POST /v1/messages/count_tokens`), like llama.cpp's pre-flight: the budget's first figure is
the provider's, the ratio is kept for the model, and a later session starts calibrated without
asking again."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.llm.preflight import cached_ratio
from testkit.fake_anthropic import FakeAnthropic, Reply

MODEL = "anthropic/claude-sonnet-4-5"
KEY = "sk-ant-test-dummy"


@pytest.fixture
def anthropic(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY) as server:
        yield server


async def services_of(server: FakeAnthropic, tmp_path, workspace):
    overrides = {
        "model": {"name": MODEL, "api_base": server.base_url, "context_window": 32_000},
        "store": {"db": str(tmp_path / "a.db")},
    }
    return await build_services(
        load_config(overrides=overrides, cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS).config,
        workspace=workspace,
    )


def paths(server: FakeAnthropic) -> list[str]:
    return [r.path.rstrip("/") for r in server.recorded]


async def test_the_first_request_is_counted_by_anthropic(anthropic, tmp_path, workspace):
    services = await services_of(anthropic, tmp_path, workspace)
    try:
        session = await services.new_session(yes=True)
        anthropic.enqueue(Reply(text="ok"))
        first = reported = None
        async for event in session.run_turn(
            "Which ids failed? " + " ".join(f"id={i:06d}" for i in range(300))
        ):
            if isinstance(event, ev.BudgetMeasured) and first is None:
                first = event.budget.used
            elif isinstance(event, ev.UsageReported) and reported is None:
                reported = event.usage.prompt_tokens
    finally:
        await services.close()
    assert paths(anthropic)[:2] == ["/v1/messages/count_tokens", "/v1/messages"], paths(anthropic)
    counted = anthropic.counted[0]
    assert "max_tokens" not in counted and "stream" not in counted and counted["tools"]
    assert first and reported and abs(first - reported) / reported <= 0.03, (first, reported)
    assert cached_ratio(MODEL, anthropic.base_url) is not None


async def test_a_later_session_starts_calibrated_and_does_not_count(anthropic, tmp_path, workspace):
    services = await services_of(anthropic, tmp_path, workspace)
    try:
        first = await services.new_session(yes=True)
        anthropic.enqueue(Reply(text="one"), Reply(text="two"))
        async for _ in first.run_turn("hello"):
            pass
        later = await services.new_session(yes=True)
        async for _ in later.run_turn("again"):
            pass
    finally:
        await services.close()
    assert paths(anthropic).count("/v1/messages/count_tokens") == 1, paths(anthropic)
    assert later.meter.calibration.calls >= 1


async def test_a_proxy_without_count_tokens_is_asked_once(monkeypatch, tmp_path, workspace):
    """An Anthropic-compatible proxy that answers 404 to count_tokens: turns go on, calibrated by
    their usage, and it is not asked again in this process."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY, counts_tokens=False) as server:
        services = await services_of(server, tmp_path, workspace)
        try:
            server.enqueue(Reply(text="one"), Reply(text="two"))
            for prompt in ("hello", "again"):
                session = await services.new_session(yes=True)
                events = [e async for e in session.run_turn(prompt)]
                assert events[-1].stop_reason == "done"
        finally:
            await services.close()
    assert paths(server).count("/v1/messages/count_tokens") == 1, paths(server)
    assert paths(server).count("/v1/messages") == 2
