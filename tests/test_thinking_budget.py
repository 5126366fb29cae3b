"""Reasoning in the budget: the reply reserve holds the thinking budget (the request's max_tokens
grows by it, and the strict local server rejects prompt + max_tokens over its window), the
thinking blocks a request sends back count in the conversation, and calibration — the ratio of
the provider's reported prompt tokens to our estimate — is not thrown off by heavy reasoning."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.base.messages import TokenUsage
from agent_tui.compose.factory import build_services
from agent_tui.core.context_report import build_report
from agent_tui.frontends.tui.screens.context_screen import footer_lines
from agent_tui.llm.cost import Prices, cost_of
from testkit.fake_anthropic import FakeAnthropic, Reply
from testkit.fake_openai import Reply as OpenAIReply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.anthropic_fixtures import KEY, thinking_services

THOUGHT = " ".join(f"step{i} consider the file layout and what the user asked" for i in range(300))


def errors(events: list) -> list:
    return of_type(events, ev.ErrorEvent)


async def per_call_ratios(session, prompts: list[str]) -> list[float]:
    """reported / estimated prompt tokens of every call of these turns, in order."""
    ratios = []
    for prompt in prompts:
        async for event in session.run_turn(prompt):
            assert not isinstance(event, ev.ErrorEvent), event
            if isinstance(event, ev.UsageReported):
                calibration = session.meter.calibration
                ratios.append(calibration.anchor_reported / calibration.anchor_estimate)
    return ratios


@pytest.fixture
def small_anthropic(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(window=20_000, api_key=KEY) as server:
        yield server


class TestReserve:
    async def test_the_reserve_holds_the_thinking_budget_and_the_request_asks_for_both(
        self, small_anthropic, tmp_path, workspace
    ):
        """answer 2 000 + thinking 6 000: the meter keeps 8 000 free and max_tokens says 8 000."""
        model = {"context_window": 20_000, "max_output_tokens": 2000}
        services = await thinking_services(
            small_anthropic, tmp_path / "t.db", workspace, budget=6000, model=model
        )
        try:
            session = await services.new_session(yes=True)
            budget = session.measure()
            await collect(session.run_turn("hi"))
        finally:
            await services.close()
        assert (budget.max_output_tokens, budget.thinking_reserve, budget.effective_window) == (
            8000,
            6000,
            12_000,
        )
        assert small_anthropic.requests[0]["max_tokens"] == 8000
        assert small_anthropic.requests[0]["thinking"]["budget_tokens"] == 6000

    async def test_a_budget_too_large_for_the_window_is_capped_to_half_of_it(
        self, small_anthropic, tmp_path, workspace
    ):
        """32 000 of thinking in a 20 000 window: the budget shrinks so half the window stays
        for the prompt, and the request is accepted."""
        model = {"context_window": 20_000, "max_output_tokens": 2000}
        services = await thinking_services(
            small_anthropic, tmp_path / "t.db", workspace, budget=32_000, model=model
        )
        try:
            session = await services.new_session(yes=True)
            events = await collect(session.run_turn("hi"))
        finally:
            await services.close()
        assert not errors(events), errors(events)
        assert small_anthropic.requests[0]["thinking"]["budget_tokens"] == 8000
        assert session.last_budget.effective_window == 10_000

    async def test_long_turns_compact_before_prompt_and_reserve_overflow_the_window(
        self, small_anthropic, tmp_path, workspace
    ):
        """Replies of ~1 500 tokens fill a 20 000 window whose reserve is 8 000: every request is
        accepted (the server checks prompt + max_tokens against its window) because compaction
        ran on the effective window that counts the thinking budget."""
        model = {"context_window": 20_000, "max_output_tokens": 2000}
        services = await thinking_services(
            small_anthropic, tmp_path / "t.db", workspace, budget=6000, model=model
        )
        long_reply = " ".join(f"line {i} of a long explanation about the code" for i in range(180))
        small_anthropic.responder = lambda body: Reply(text=long_reply)
        seen = []
        try:
            session = await services.new_session(yes=True)
            for n in range(10):
                seen += await collect(session.run_turn(f"explain part {n}"))
        finally:
            await services.close()
        assert not errors(seen), errors(seen)
        # No request was refused (the loop would have compacted and retried, quietly).
        assert len(small_anthropic.reports) == len(small_anthropic.requests)
        assert "context_length" not in [e.reason for e in of_type(seen, ev.CompactionStarted)]
        assert of_type(seen, ev.CompactionFinished)


class TestCountedAndCalibrated:
    async def test_sent_thinking_blocks_are_counted_in_the_conversation(self, anthropic, tmp_path, workspace):
        """While a tool-use turn is in progress its block is part of what the request holds; the
        next turn does not send it, and it is no longer counted."""
        services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(reasoning=THOUGHT, tool_calls=[("list_dir", {"path": "."})]), Reply(text="ok")
            )
            budgets = [
                e.budget for e in await collect(session.run_turn("look")) if isinstance(e, ev.BudgetMeasured)
            ]
            after = session.measure()
        finally:
            await services.close()
        during = budgets[1]  # the second step's request carries the block
        assert during.reasoning > 3000 and during.conversation > during.reasoning
        assert budgets[0].reasoning == 0 and after.reasoning == 0

    async def test_calibration_stays_put_across_steps_that_think_heavily_anthropic(
        self, anthropic, tmp_path, workspace
    ):
        """Each call's reported/estimated ratio stays close whether the request carries a large
        thinking block (within the tool-use turn) or not (the next turn)."""
        services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(reasoning=THOUGHT, tool_calls=[("list_dir", {"path": "."})]),
                Reply(tool_calls=[("list_dir", {"path": "."})]),
                Reply(text="done"),
                Reply(reasoning=THOUGHT, text="again"),
                Reply(text="more"),
            )
            ratios = await per_call_ratios(session, ["look", "and?", "so?"])
        finally:
            await services.close()
        assert len(ratios) == 5
        # Uncounted, the two calls carrying the block read ×2.7 against ×1.1 for the others.
        assert max(ratios) / min(ratios) < 1.2, ratios

    async def test_calibration_stays_put_across_steps_that_reason_heavily_openai(
        self, server, tmp_path, workspace
    ):
        """reasoning_content is never sent back, so it must not enter the estimate either: the
        ratio stays put across steps that reason for thousands of tokens."""
        config = make_config(server, tmp_path / "o.db")
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(
                OpenAIReply(reasoning=THOUGHT, tool_calls=[("list_dir", {"path": "."})]),
                OpenAIReply(reasoning=THOUGHT, tool_calls=[("list_dir", {"path": "."})]),
                OpenAIReply(reasoning=THOUGHT, text="done"),
                OpenAIReply(reasoning=THOUGHT, text="again"),
            )
            ratios = await per_call_ratios(session, ["look", "and?"])
        finally:
            await services.close()
        assert len(ratios) == 4
        assert max(ratios) / min(ratios) < 1.1, ratios


class TestReported:
    async def test_context_shows_a_reasoning_line(self, anthropic, tmp_path, workspace):
        """/context's footer: the thinking budget within the reserve, the blocks sent back
        mid-turn, the output spent reasoning; a model that does not reason shows no such line."""
        services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(reasoning=THOUGHT, tool_calls=[("list_dir", {"path": "."})]), Reply(text="ok")
            )
            turn = session.run_turn("look")
            async for event in turn:
                if isinstance(event, ev.ToolCallFinished):
                    break
            mid = footer_lines(build_report(session, session.measure())).plain
            await turn.aclose()
        finally:
            await services.close()
        line = next(row for row in mid.splitlines() if row.startswith("Reasoning: "))
        assert "thinking budget 2 048 of the " in line
        assert "of the conversation are thinking blocks sent back" in line
        spent = session.history[1].reasoning.tokens
        assert spent > 3000 and f"{spent:,} output tokens spent reasoning".replace(",", " ") in line

    async def test_no_reasoning_line_without_reasoning(self, server, tmp_path, workspace):
        """A plain reply on a model with no reasoning settings: the footer stays as it was."""
        services = await build_services(make_config(server, tmp_path / "o.db"), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            await collect(session.run_turn("hi"))
            text = footer_lines(build_report(session, session.measure())).plain
        finally:
            await services.close()
        assert "Reasoning" not in text

    def test_reasoning_tokens_are_part_of_output_and_priced_once(self):
        """Reported reasoning is a share of the output: the total and the cost do not add it."""
        prices = Prices(input=1e-6, output=1e-5, cache_read=1e-7, cache_creation=1e-6)
        usage = TokenUsage.from_litellm(
            {
                "prompt_tokens": 100,
                "completion_tokens": 500,
                "completion_tokens_details": {"reasoning_tokens": 400},
            }
        )
        assert (usage.output, usage.reasoning, usage.total) == (500, 400, 600)
        assert cost_of(usage, prices) == pytest.approx(100 * 1e-6 + 500 * 1e-5)
        assert (usage + usage).reasoning == 800
