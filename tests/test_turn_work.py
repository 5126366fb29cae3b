"""Work on every turn's path is done once, and only when it has something to do.

The loop's own time per turn (benchmarks/turn_overhead.py) is the sum of small pieces run on
every turn; each test here holds one of them to its observable work — files written, rows
updated, budgets measured — never to seconds.
"""

from __future__ import annotations

import os

from agent_tui.agent import window
from agent_tui.base.messages import assistant, user
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.llm.preflight import _cache_file, cached_ratio
from testkit.fake_anthropic import FakeAnthropic
from testkit.fake_anthropic import Reply as AnthropicReply
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config


def file_identity() -> tuple[int, int] | None:
    """Each keep rewrites the state file through a new file renamed over it: a new inode."""
    try:
        st = os.stat(_cache_file())
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


async def test_the_calibration_is_kept_when_it_moved_not_on_every_turn(tmp_path, workspace):
    """The ratio moves a little with every reply; keeping it rewrote the state file and the
    session's row on every turn (a file read, a JSON rewrite and a transaction per turn once
    tiktoken is loaded, as it is in the TUI after the first reply). It is kept again only once it
    has moved by KEEP_STEP — a start that close is well inside the pre-flight's margin."""
    with FakeOpenAI(window=32_000, token_scale=1.3) as server:
        services = await build_services(make_config(server, tmp_path / "k.db", 32_000), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            session.meter.counter.wait_exact()
            server.enqueue(Reply(text="one"))
            await collect(session.run_turn("first"))
            store = services.store
            assert store is not None
            kept = await store.sessions.calibration(session.session_id)
            assert kept is not None, "the first ratio learned is kept"
            written = file_identity()
            assert written is not None
            calibration = session.meter.calibration
            ratio = calibration.ratio

            # A reply whose ratio differs by a hair: nothing is rewritten.
            calibration.record(round(1000 * (ratio + window.KEEP_STEP / 4)), 1000, session.history)
            assert calibration.ratio != ratio
            await window.keep_calibration(session)
            assert file_identity() == written
            assert await store.sessions.calibration(session.session_id) == kept

            # A ratio that moved: both are kept again.
            calibration.record(round(1000 * (ratio + 10 * window.KEEP_STEP)), 1000, session.history)
            await window.keep_calibration(session)
            moved = round(calibration.ratio, 4)
            assert file_identity() != written
            assert cached_ratio("openai/fake-model", server.base_url) == moved
            assert await store.sessions.calibration(session.session_id) == {
                "model": session.model,
                "ratio": moved,
            }
        finally:
            await services.close()


async def test_a_turn_measures_the_request_the_preflight_checks_once(tmp_path, workspace):
    """The pre-flight (a server that can count, agent/window.py) decides on the thresholds' own
    measure of the request instead of measuring it again first on every turn, and the turn ends
    on the thresholds' last figure when they changed nothing. A one-step turn measures the
    request before the prompt is stored, in the thresholds before the step, for the step's
    request and in the thresholds after it: four."""
    with FakeOpenAI(window=32_000) as server:
        services = await build_services(make_config(server, tmp_path / "m.db", 32_000), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(Reply(text="one"), Reply(text="two"))
            await collect(session.run_turn("first"))
            assert session.meter.calibration.calls, "calibrated by the first reply"
            measured = session.meter.measure
            calls = 0

            def counting(*args, **kwargs):
                nonlocal calls
                calls += 1
                return measured(*args, **kwargs)

            session.meter.measure = counting  # type: ignore[method-assign]  # counts, changes nothing
            events = await collect(session.run_turn("second"))
        finally:
            await services.close()
    assert events[-1].stop_reason == "done"
    assert calls == 4, calls
    assert session.last_budget == session.measure(), "the turn ends on the request's current figure"


async def test_a_calibrated_request_near_the_trigger_is_still_counted_before_it_is_sent(
    monkeypatch, tmp_path, workspace
):
    """Taking the thresholds' measure keeps what the pre-flight is for: a calibrated session
    whose next request is near the compaction trigger has it counted by the server before the
    thresholds decide on it."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    with FakeAnthropic(api_key="sk-ant-test-dummy") as server:
        overrides = {
            "model": {
                "name": "anthropic/claude-sonnet-4-5",
                "api_base": server.base_url,
                "context_window": 32_000,
            },
            "store": {"db": str(tmp_path / "n.db")},
        }
        config = load_config(overrides=overrides, cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS).config
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            session.meter.counter.wait_exact()  # exact from the start: the calibration is not reset
            server.enqueue(AnthropicReply(text="one"), AnthropicReply(text="two"))
            await collect(session.run_turn("first"))
            assert len(server.counted) == 1 and session.meter.calibration.calls
            budget = session.measure()
            near = budget.compact_trigger - window.NEAR_TRIGGER
            i = 0
            while budget.used_fraction < near + 0.015:
                i += 1
                session.history.extend(
                    [user(f"note {i}: " + "lorem ipsum dolor " * 100), assistant(f"noted {i}")]
                )
                budget = session.measure()
            assert budget.used_fraction < budget.compact_trigger - 0.02, budget.used_fraction
            events = await collect(session.run_turn("go on"))
        finally:
            await services.close()
    assert events[-1].stop_reason == "done"
    assert len(server.counted) == 2, "counted again near the trigger"
    assert len(server.counted[-1]["messages"]) > 2 * i, "the filled request was counted"
