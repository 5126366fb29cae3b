"""The first request of a session is counted by llama.cpp itself before it is sent (its
/apply-template and /tokenize), so a tokenizer that splits digits one by one does not surprise
the budget; the ratio learned is kept for the next session of the model (and `-c`)."""

from __future__ import annotations

import time

from agent_tui.agent import events as ev
from agent_tui.agent.window import preflight
from agent_tui.llm.preflight import cached_ratio
from tests.support.real_server import MODEL, QUIET, log_paste


async def test_the_first_request_is_measured_as_the_server_counts_it(llama, services):
    session = await (await services(agent=QUIET)).new_session()
    estimate = reported = raw = None
    async for event in session.run_turn("Which ids failed?\n" + log_paste(700)):
        if isinstance(event, ev.BudgetMeasured) and estimate is None:
            estimate = event.budget.used
        elif isinstance(event, ev.StepStarted):
            raw = session.meter.last_raw_estimate
        elif isinstance(event, ev.UsageReported) and reported is None:
            reported = event.usage.prompt_tokens
    assert estimate and reported and raw
    detail = f"estimate {estimate}, server {reported}, tiktoken {raw}"
    assert abs(estimate - reported) / reported <= 0.03, detail
    assert (reported - raw) / reported > 0.10, detail  # tiktoken alone was far off
    assert cached_ratio(MODEL, session.config.model.api_base) is not None


async def test_the_next_session_starts_calibrated_and_counts_nothing(llama, services):
    svc = await services(agent=QUIET)
    first = await svc.new_session()
    started = time.perf_counter()
    counted = await preflight(first, first.measure())
    took = time.perf_counter() - started
    assert counted and counted > 300, counted
    print(f"pre-flight count of a {counted}-token request: {took * 1000:.0f} ms")
    async for _ in first.run_turn("hello"):
        pass
    second = await svc.new_session()
    assert await preflight(second, second.measure()) is None  # the kept ratio calibrated it
    assert second.meter.calibration.calls == 1
    assert abs(second.meter.calibration.ratio - first.meter.calibration.ratio) < 0.25
