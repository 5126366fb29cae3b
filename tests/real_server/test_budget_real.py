"""The budget against a real tokenizer and a real window: after a provider report the meter's
estimate tracks Gemma's count, not tiktoken's, and a long session of large pastes never sends a
request the 4096-token window refuses."""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.agent import events as ev
from agent_tui.base.tokens import TokenCounter
from tests.support.real_server import MODEL, QUIET, WINDOW, gemma_tokens, paste


@dataclass
class Call:
    """One model call of a turn, as the loop measured it and as the server counted it."""

    estimate: int
    """The budget's `used` for the request, from the BudgetMeasured event before it."""
    raw: int
    """The meter's uncalibrated tiktoken estimate of the same request."""
    reported: int | None = None
    """prompt_tokens the server reported for it."""


async def run(session, prompt: str) -> tuple[list, list[Call]]:
    """One turn's events, and each model call's estimate beside the server's count."""
    events: list = []
    calls: list[Call] = []
    budget = None
    async for event in session.run_turn(prompt):
        events.append(event)
        if isinstance(event, ev.BudgetMeasured):
            budget = event.budget
        elif isinstance(event, ev.StepStarted):
            calls.append(Call(budget.used, session.meter.last_raw_estimate))
        elif isinstance(event, ev.UsageReported):
            calls[-1].reported = event.usage.prompt_tokens
    return events, calls


KINDS = ("numbers", "code", "thai")


class TestCalibration:
    async def test_third_request_estimate_within_5_percent(self, llama, services):
        """After two reports, the third request's estimate is within 5% of the server's count."""
        session = await (await services(agent=QUIET)).new_session()
        pastes = [paste("numbers", 420, seed) for seed in range(3)]
        counter = TokenCounter(MODEL)
        for text in pastes:  # the text itself: tiktoken undercounts Gemma by over a third
            real = gemma_tokens(llama, text)
            assert (real - counter.count_text(text)) / real > 0.30
        for text in pastes[:2]:
            events, _ = await run(session, f"Keep these rows:\n{text}")
            assert events[-1].stop_reason == "done"
        events, calls = await run(session, f"And these:\n{pastes[2]}")
        assert events[-1].stop_reason == "done" and len(calls) == 1
        third = calls[0]
        error = abs(third.estimate - third.reported) / third.reported
        raw_error = abs(third.raw - third.reported) / third.reported
        detail = (
            f"reported {third.reported}, estimate {third.estimate} ({error:.1%}), "
            f"raw tiktoken {third.raw} ({raw_error:.1%})"
        )
        assert error <= 0.05, detail
        assert raw_error > 2 * error, detail


class TestLongSession:
    async def test_twelve_large_pastes_never_overflow_after_calibration(self, llama, services):
        """12 large pastes through 4096 tokens: all succeed, none refused after calibration."""
        svc = await services(agent=QUIET, compaction={"summarization": False})
        session = await svc.new_session()
        overflows_at_start = llama.overflows()
        calibrated_overflows = None
        reported: list[int] = []
        compactions = 0
        for turn in range(12):
            text = paste(KINDS[turn % 3], 500, seed=turn)
            events, calls = await run(session, f"Paste {turn}:\n{text}")
            errors = [e.message for e in events if isinstance(e, ev.ErrorEvent)]
            assert not errors and events[-1].stop_reason == "done", (turn, errors)
            reported += [c.reported for c in calls if c.reported]
            compactions += sum(isinstance(e, ev.CompactionFinished) for e in events)
            if calibrated_overflows is None:
                calibrated_overflows = llama.overflows()
        assert llama.overflows() == calibrated_overflows, llama.errors()[-3:]
        assert calibrated_overflows - overflows_at_start <= 1
        assert compactions >= 2
        assert max(reported) > 0.75 * WINDOW
        assert session.history[-1].role == "assistant"
