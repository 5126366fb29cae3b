"""The chain as the loop uses it: order, stopping, rejection, reasons, estimates, result line."""

from __future__ import annotations

from agent_tui.base.messages import Message
from agent_tui.context.compaction import (
    CompactionPlan,
    CompactResult,
    check_invariants,
    clear_tool_outputs,
    compact,
    estimate_savings,
)
from tests.support.compaction import COUNTER, Convo, long_session, settings, tokens


async def tagged(messages, instructions, max_tokens):
    return "<retain>Decision: WAL</retain><summary>Work so far, briefly.</summary>"


tagged.model = "fake/tagged"


def run(messages, share, *, fixed=0, **kw):
    cfg = kw.pop("cfg", settings())
    target = int(tokens(messages) * share) + fixed
    return compact(messages, counter=COUNTER, settings=cfg, target_tokens=target, fixed_tokens=fixed, **kw)


class TestChainOrder:
    async def test_under_the_target_nothing_happens(self):
        """Already fitting: the same messages come back, not applied, reason given."""
        c = long_session(turns=2)
        out, result = await run(c.messages, 1.5)
        assert out == c.messages and not result.applied and result.reached_target
        assert "already under the target" in result.reason

    async def test_stops_after_the_first_strategy_that_fits(self):
        """Clearing alone reaches the target: pruning and summary never run."""
        c = long_session()
        calls = []

        async def summarizer(messages, instructions, max_tokens):
            calls.append(1)
            return "x"

        out, result = await run(c.messages, 0.7, summarizer=summarizer)
        assert result.strategies == ("tool_clearing",) and result.reached_target
        assert calls == []
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []

    async def test_runs_on_to_the_summary_when_cheap_ones_are_not_enough(self):
        """A tight target goes through clearing and pruning to the summary."""
        c = long_session(turns=8)
        out, result = await run(c.messages, 0.015, summarizer=tagged)
        assert result.strategies[-1] == "summarization"
        assert result.strategies[0] == "tool_clearing"
        assert result.summary_model == "fake/tagged" and result.reached_target
        assert result.tokens_after < result.tokens_before
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []

    async def test_without_a_summariser_truncation_finishes_the_job(self):
        """No summariser: cheap strategies then truncation; the reason names the missing one."""
        c = long_session(turns=8)
        out, result = await run(c.messages, 0.015)
        assert result.strategies[-1] == "truncation" and result.reached_target
        assert "no summariser" in result.reason
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []

    async def test_disabled_strategies_are_skipped(self):
        """Each strategy obeys its switch in the settings."""
        c = long_session(turns=8)
        cfg = settings(tool_clearing=False, pruning=False)
        out, result = await run(c.messages, 0.015, cfg=cfg, summarizer=tagged)
        assert result.strategies == ("summarization",)

    async def test_progress_names_each_strategy_and_a_broken_callback_is_harmless(self):
        """on_progress hears each strategy as it starts; an exception in it changes nothing."""
        c = long_session(turns=8)
        heard: list[str] = []

        def progress(label: str) -> None:
            heard.append(label)
            raise RuntimeError("widget gone")

        out, result = await run(c.messages, 0.015, summarizer=tagged, on_progress=progress)
        assert result.applied
        assert heard[:3] == ["tool clearing", "pruning", "summary"]


class TestRejectionAndReasons:
    async def test_a_compaction_that_would_grow_is_rejected(self):
        """A summary longer than what it replaces is never applied."""
        c = Convo()
        for i in range(6):
            c.user(f"q{i}")
            c.say(f"a{i}")

        async def verbose(messages, instructions, max_tokens):
            return "<summary>" + "very long summary " * 500 + "</summary>"

        cfg = settings(truncation=False)
        out, result = await run(c.messages, 0.5, cfg=cfg, summarizer=verbose)
        assert not result.applied and out == c.messages
        assert result.tokens_after == result.tokens_before
        assert "would not shrink" in result.reason

    async def test_fixed_part_over_the_target_is_named_and_compaction_still_helps(self):
        """System prompt + tools above the target: the reason says so; the history still shrinks."""
        c = long_session(turns=6)
        out, result = await compact(
            c.messages,
            counter=COUNTER,
            settings=settings(),
            target_tokens=5000,
            fixed_tokens=8000,
            summarizer=tagged,
        )
        assert result.applied and not result.reached_target
        assert "system prompt and tool descriptions alone take 8k tokens" in result.reason
        assert result.tokens_after - 8000 < tokens(c.messages)
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []

    async def test_disabled_compaction_does_nothing(self):
        """`enabled = false`: skipped, with the setting named."""
        c = long_session(turns=4)
        out, result = await run(c.messages, 0.1, cfg=settings(enabled=False))
        assert not result.applied and "enabled = false" in result.reason

    async def test_what_must_stay_larger_than_the_target_is_the_reason(self):
        """A newest message over the budget: compacted as far as possible, and why not more."""
        c = long_session(turns=3)
        c.user("paste: " + "word " * 3000)
        out, result = await compact(
            c.messages, counter=COUNTER, settings=settings(), target_tokens=1000, fixed_tokens=0
        )
        assert result.applied and not result.reached_target
        assert "newest user message and the step in flight alone take" in result.reason
        assert out[-1] is c.messages[-1]


class TestForce:
    async def test_forced_under_target_still_summarises(self):
        """`/compact` with room to spare still replaces the old part with a summary."""
        c = long_session(turns=4)
        out, result = await run(c.messages, 2.0, summarizer=tagged, force=True)
        assert result.applied and result.strategies == ("summarization",)

    async def test_forced_without_a_summariser_clears_as_far_as_it_can(self):
        """No summariser: a forced compaction runs the cheap strategies to their full reach."""
        c = long_session(turns=4)
        out, result = await run(c.messages, 2.0, force=True)
        assert result.applied and "tool_clearing" in result.strategies
        assert check_invariants(c.messages, out, counter=COUNTER) == []


class TestEstimates:
    async def test_each_strategy_reports_what_it_alone_would_free(self):
        """Four figures, none touching the history; clearing matches a full-reach clearing run."""
        c = long_session(turns=6)
        snapshot = list(c.messages)
        target = tokens(c.messages)
        savings = await estimate_savings(
            c.messages, counter=COUNTER, settings=settings(), target_tokens=target, fixed_tokens=0
        )
        assert set(savings) == {"tool_clearing", "pruning", "summarization", "truncation"}
        assert all(v > 0 for v in savings.values())
        assert c.messages == snapshot
        full = CompactionPlan.build(settings(), target_tokens=target, fixed_tokens=0).unbounded()
        cleared = clear_tool_outputs(c.messages, full, COUNTER)
        assert savings["tool_clearing"] == tokens(c.messages) - cleared.tokens
        assert savings["pruning"] >= savings["tool_clearing"]


class TestDescribe:
    def test_line_names_sizes_strategies_and_time(self):
        """`Compacted 182k → 41k tokens (tool clearing, summary; 900 → 40 messages) in 3.2 s`."""
        result = CompactResult(
            182_431,
            41_200,
            900,
            40,
            ("tool_clearing", "summarization"),
            3.21,
            "m",
            True,
            "",
            True,
            target_tokens=120_000,
            labels=("tool clearing", "summary"),  # the chain labels what ran (compaction/strategies.py)
        )
        line = "Compacted 182k → 41k tokens (tool clearing, summary; 900 → 40 messages) in 3.2 s"
        assert result.describe() == line

    def test_small_change_shows_real_figures_and_what_was_dropped(self):
        """3 050 → 2 960 by truncation read `Compacted 3k → 3k tokens (truncation)`."""
        result = CompactResult(3_050, 2_960, 12, 10, ("truncation",), 0.01, None, True, "", True)
        line = "Compacted 3 050 → 2 960 tokens (truncation; 12 → 10 messages) in 0.0 s"
        assert result.describe() == line
        result = CompactResult(3_450, 3_360, 12, 10, ("truncation",), 0.01, None, True, "", True)
        assert result.describe().startswith("Compacted 3.5k → 3.4k tokens")

    def test_line_says_when_the_target_was_missed(self):
        """Over target: the line says so and why."""
        result = CompactResult(
            9_000,
            8_200,
            10,
            4,
            ("truncation",),
            0.01,
            None,
            False,
            "truncation is disabled",
            True,
            target_tokens=5_000,
        )
        assert result.describe().endswith("still over the 5k target: truncation is disabled")

    def test_rejected_line_gives_the_reason(self):
        """Not applied: `Compaction skipped: <reason>`."""
        result = CompactResult(
            9_000, 9_000, 10, 10, (), 0.0, None, True, "the conversation is already under the target", False
        )
        line = "Compaction skipped: the conversation is already under the target"
        assert result.describe() == line

    def test_result_serialises_for_the_event_stream(self):
        """to_json holds every field the `--json` stream prints."""
        result = CompactResult(10, 5, 2, 1, ("pruning",), 0.5, None, True, "", True)
        data = result.to_json()
        assert data["strategies"] == ["pruning"] and data["applied"] is True


class TestSystemMessages:
    async def test_a_leading_system_message_is_kept(self):
        """If a caller passes the system prompt along, every strategy leaves it first."""
        c = long_session(turns=6)
        messages = [Message(role="system", content="You are helpful."), *c.messages]
        out, result = await run(messages, 0.015, summarizer=tagged)
        assert out[0] is messages[0]
        assert check_invariants(messages, out, counter=COUNTER, result=result) == []
