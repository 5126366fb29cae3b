"""A context-length refusal teaches the budget: the provider's count of the refused request
calibrates the meter, the retry is smaller, the same request is never sent twice, and when
nothing can fit one clear error names the part that is too big and what to set."""

from __future__ import annotations

import json

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.llm.errors import LLMError
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type


def sent(server: FakeOpenAI) -> list[str]:
    return [json.dumps([r["messages"], r.get("tools")], sort_keys=True) for r in server.requests]


def log_lines(n: int) -> str:
    return "\n".join(
        f"2026-11-27T10:{i % 60:02d}:07.{i:03d}Z req={i * 2654435761 % 16**8:08x} ms={i % 997}"
        for i in range(n)
    )


@pytest.mark.parametrize(
    ("text", "prompt", "window"),
    [
        (
            "request (4417 tokens) exceeds the available context size (4096 tokens), try increasing it",
            4417,
            4096,
        ),
        (
            "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 "
            "tokens. Please reduce the length of the messages.",
            9001,
            8192,
        ),
        (
            "This model's maximum context length is 8192 tokens. However, you requested 9500 tokens (9000 "
            "in the messages, 500 in the completion).",
            9000,
            8192,
        ),
        ("prompt is too long: 210345 tokens > 200000 maximum", 210345, 200000),
    ],
)
def test_each_providers_refusal_names_the_count(text, prompt, window):
    error = LLMError("context_length", "too long", detail=text[:40])
    error.full_text = text
    assert error.reported_prompt == prompt
    assert error.reported_window == window


async def test_a_refusal_calibrates_and_the_retry_is_smaller(tmp_path, workspace):
    """The server counts 1.5× our estimate (a digit-splitting tokenizer): the first request is
    refused, the retry is smaller, never identical, and the turn is answered without an error."""
    with FakeOpenAI(window=4096, token_scale=1.5) as server:
        config = make_config(server, tmp_path / "r.db", 4096, model={"max_output_tokens": 256})
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(Reply(text="the failing ids are listed"))
            events = await collect(session.run_turn("Here is the log:\n" + log_lines(60)))
        finally:
            await services.close()
    requests = sent(server)
    assert len(set(requests)) == len(requests), "a request was sent twice"
    chat = [r for r in server.requests if r.get("tools")]  # not the summariser's
    counts = [server.prompt_tokens_of(r) for r in chat]
    refused = [r for r in server.requests if server.prompt_tokens_of(r) + r["max_tokens"] > 4096]
    assert refused and refused[0] is chat[0], counts  # the first was refused, by 1.5× our count
    assert all(later < counts[0] for later in counts[1:]), counts  # every retry is smaller
    assert len(refused) == 1, counts  # and the calibrated budget is right from then on
    assert not of_type(events, ev.ErrorEvent)
    assert events[-1].stop_reason == "done"
    assert session.meter.calibration.ratio > 1.3
    assert any("refused the request as too long" in n.message for n in of_type(events, ev.Notice))


async def test_a_window_smaller_than_the_system_prompt_gives_one_clear_error(tmp_path, workspace):
    """Configured for 32k, the server holds 600 tokens: no loop, one error naming the part."""
    with FakeOpenAI(window=600) as server:
        config = make_config(server, tmp_path / "s.db", 32_000, model={"max_output_tokens": 64})
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            events = await collect(session.run_turn("hello"))
        finally:
            await services.close()
    requests = sent(server)
    assert len(set(requests)) == len(requests) and len(requests) <= 4
    errors = of_type(events, ev.ErrorEvent)
    assert len(errors) == 1, [e.message for e in errors]
    message = errors[0].message
    assert "is too big" in message and "context_window" in message, message
    assert "system prompt" in message or "tool descriptions" in message
    assert events[-1].stop_reason == "error"


async def test_a_server_that_cannot_count_is_asked_once_and_the_ratio_is_kept(tmp_path, workspace):
    """Not llama.cpp: /apply-template answers 404 once, turns go on; the ratio the first reply
    taught is kept, so the next session (or `-c`) starts calibrated."""
    from agent_tui.llm.preflight import cached_ratio

    with FakeOpenAI(window=32_000, token_scale=1.3) as server:
        base = server.base_url
        config = make_config(server, tmp_path / "k.db", 32_000)
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(Reply(text="one"), Reply(text="two"), Reply(text="three"))
            await collect(session.run_turn("first " + log_lines(20)))
            await collect(session.run_turn("second"))
            later = await services.new_session(yes=True)
            later.meter.counter.wait_exact()
            budget = later.measure()
            await collect(later.run_turn("third"))
        finally:
            await services.close()
    asked = [r.path for r in server.recorded if r.path.endswith("/apply-template")]
    assert len(asked) == 1
    assert abs(cached_ratio("openai/fake-model", base) - session.meter.calibration.ratio) < 0.01
    assert budget.calibrated and later.meter.calibration.ratio > 1.1


async def test_a_compaction_notice_says_the_meters_figures(tmp_path, workspace):
    """`Compacted X → Y` in the calibrated figures the meter shows, not the raw counter's."""
    with FakeOpenAI(window=32_000, token_scale=1.5) as server:
        services = await build_services(make_config(server, tmp_path / "n.db", 32_000), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            for turn in range(4):
                server.enqueue(Reply(text=f"noted {turn}"))
                await collect(session.run_turn(f"turn {turn}: " + log_lines(40)))
            before = session.measure().used
            server.enqueue(Reply(text="<summary>the logs</summary>"))
            events = await collect(session.compact())
        finally:
            await services.close()
    finished = of_type(events, ev.CompactionFinished)[-1].result
    after = of_type(events, ev.BudgetMeasured)[-1].budget
    assert finished.applied and session.meter.calibration.ratio > 1.3
    assert finished.tokens_before == before
    assert finished.tokens_after == after.used
    assert finished.reached_target == (after.used <= finished.target_tokens)


async def test_a_step_whose_outputs_pass_the_window_is_cut_to_fit(tmp_path, workspace):
    """A reply of 28 calls whose outputs together pass an 8 192-token window: their views are cut
    (refs kept) before the next request, which fits; the turn is answered, no error."""
    calls = [("bash", {"command": f"seq {i} 3 40000"}) for i in range(28)]
    with FakeOpenAI(window=8192) as server:
        services = await build_services(make_config(server, tmp_path / "w.db", 8192), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(Reply(tool_calls=calls), Reply(text="read them all"))
            events = await collect(session.run_turn("run them"))
        finally:
            await services.close()
    assert not of_type(events, ev.ErrorEvent), [e.message for e in of_type(events, ev.ErrorEvent)]
    assert events[-1].stop_reason == "done" and events[-1].text == "read them all"
    for body in server.requests:
        assert server.prompt_tokens_of(body) + body["max_tokens"] <= 8192
    results = [m for m in session.history if m.role == "tool"]
    assert len(results) == 28 and all("ref=" in (m.content or "") for m in results)
