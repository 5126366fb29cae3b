"""Summarisation: the retain block and summary, fallbacks, chunking, what the summariser sees.

The summarisers here are plain async functions standing in for the model (test doubles of the
summariser, not of compaction): one answers with tags, one without, one raises.
"""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.base.messages import Message
from agent_tui.context.compaction import (
    CompactionPlan,
    SummaryFailed,
    check_invariants,
    collect_refs,
    compact,
    parse_reply,
    summarize,
)
from agent_tui.context.compaction.summary_prompt import build_instructions
from tests.support.compaction import COUNTER, Convo, big, long_session, settings, tokens

TAGGED = (
    "<retain>\nDecision: keep SQLite in WAL mode\nsrc/module_0.py\n</retain>\n"
    "<summary>The user asked to fix failing tests in six modules; each fix was an off-by-one."
    "</summary>"
)


def recording(reply: str, model: str = "fake/tagged"):
    """An async summariser returning `reply` and remembering what it was sent."""
    calls: list[tuple[list[Message], str, int]] = []

    async def summarizer(messages: list[Message], instructions: str, max_tokens: int) -> str:
        calls.append((messages, instructions, max_tokens))
        await asyncio.sleep(0)
        return reply

    summarizer.model = model  # type: ignore[attr-defined]  # summarisers may name their model
    summarizer.calls = calls  # type: ignore[attr-defined]  # the tests read the calls made
    return summarizer


async def failing(messages: list[Message], instructions: str, max_tokens: int) -> str:
    raise ConnectionError("provider unreachable")


failing.model = "fake/down"  # type: ignore[attr-defined]  # summarisers may name their model


def target_for(messages: list[Message], share: float = 0.25) -> int:
    return int(tokens(messages) * share)


async def run(messages, summarizer, *, share=0.25, fallback=None, **kw):
    cfg = settings(tool_clearing=False, pruning=False, **kw.pop("cfg", {}))
    return await compact(
        messages,
        counter=COUNTER,
        settings=cfg,
        target_tokens=target_for(messages, share),
        fixed_tokens=0,
        summarizer=summarizer,
        fallback_summarizer=fallback,
        **kw,
    )


class TestSummaryLayout:
    async def test_history_becomes_retain_summary_and_the_last_turn(self):
        """Retain block (user), summary (assistant), then the last turn verbatim."""
        c = long_session(turns=6, steps=2, lines=60)
        summarizer = recording(TAGGED)
        out, result = await run(c.messages, summarizer)
        assert result.applied and result.strategies == ("summarization",)
        assert result.summary_model == "fake/tagged"
        retain, summary = out[0], out[1]
        assert (retain.role, retain.kind) == ("user", "retain")
        assert (summary.role, summary.kind) == ("assistant", "summary")
        assert "Decision: keep SQLite in WAL mode" in retain.content
        assert "off-by-one" in summary.content
        last_turn = c.messages[-(len(out) - 2) :]
        assert out[2:] == last_turn and last_turn[0].content.startswith("Request 5")
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []

    async def test_retain_lists_every_ref_the_model_left_out(self):
        """Refs of the summarised part are added mechanically, labelled, the newest within the
        list's cap and the older counted; one the model kept is not doubled."""
        c = long_session(turns=4, steps=2, lines=60)
        first_ref = c.messages[2].output_ref.id
        summarizer = recording(
            f"<retain>ref={first_ref} holds the first view</retain><summary>stuff</summary>"
        )
        out, result = await run(c.messages, summarizer)
        retain = out[0].content
        summarised = c.messages[: len(c.messages) - (len(out) - 2)]
        refs = [r for r in collect_refs(summarised) if r != first_ref]
        listed = [r for r in refs if f"ref={r} — " in retain]
        assert listed and listed == refs[len(refs) - len(listed) :]
        if len(listed) < len(refs):
            assert f"[{len(refs) - len(listed)} older outputs not listed here" in retain
        assert retain.count(f"ref={first_ref}") == 1
        assert " — bash: pytest tests/test_3.py -q (802 B, 21 lines)" in retain

    async def test_untagged_reply_is_used_as_the_summary(self):
        """A reply without tags becomes the summary as it is."""
        c = long_session(turns=4, steps=2, lines=60)
        out, result = await run(c.messages, recording("Plain prose summary of the work."))
        assert result.applied
        assert out[1].content.endswith("Plain prose summary of the work.")
        assert check_invariants(c.messages, out) == []

    async def test_a_summary_longer_than_the_room_is_cut_not_dropped(self):
        """A model that fills its reply limit in a tiny budget (the real llama.cpp test under
        CI): truncation used to drop the fresh summary whole, so the model call was wasted and
        the window kept nothing of the old part. Now the summary stays, cut to the room."""
        c = long_session(turns=4, steps=2, lines=60)
        c.user("What next?")
        words = " ".join(f"point{i}" for i in range(3000))
        out, result = await run(c.messages, recording(words), share=0.04)
        assert result.applied and "summarization" in result.strategies
        summaries = [m for m in out if m.kind == "summary"]
        assert len(summaries) == 1 and "point0 point1" in summaries[0].content
        assert "cut to fit" in summaries[0].content
        assert out[-1] is c.messages[-1]
        assert tokens(out) <= target_for(c.messages, 0.04)
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []

    async def test_the_reply_limit_leaves_room_in_a_small_budget(self):
        """The summariser is never asked for more than half the conversation budget (a limit
        past the budget guaranteed a summary that could not fit)."""
        c = long_session(turns=4, steps=2, lines=60)
        c.user("What next?")
        summarizer = recording("short summary")
        target = target_for(c.messages, 0.04)
        await run(c.messages, summarizer, share=0.04)
        assert summarizer.calls and all(limit <= max(target // 2, 64) for _, _, limit in summarizer.calls)

    async def test_directives_and_compact_instructions_reach_the_summariser(self):
        """Config directives and the `/compact` words are appended to the instructions."""
        c = long_session(turns=4, steps=2, lines=60)
        summarizer = recording(TAGGED)
        await run(
            c.messages,
            summarizer,
            instructions="focus on the parser",
            cfg={"summary_directives": "be terse", "retain_directives": "all URLs"},
        )
        instructions = summarizer.calls[0][1]
        assert "<retain>" in instructions and "<summary>" in instructions
        assert "be terse" in instructions and "all URLs" in instructions
        assert "focus on the parser" in instructions


class TestWhatTheSummariserSees:
    async def test_in_flight_call_is_kept_and_not_sent(self):
        """The compact_context call survives in place; the summariser never gets it unanswered."""
        c = long_session(turns=4, steps=2, lines=60)
        c.user("compact now please")
        c.calls([("compact_context", {}, None, True)])
        summarizer = recording(TAGGED)
        out, result = await run(c.messages, summarizer, cfg={"retain_last_turns": 0})
        assert out[-1] is c.messages[-1] and out[-2] is c.messages[-2]
        sent = summarizer.calls[0][0]
        assert sent[0].role == "user"
        assert all(m.role != "system" for m in sent)
        assert check_invariants(c.messages, out, result=result, counter=COUNTER) == []
        for i, m in enumerate(sent):
            if m.tool_calls:
                answered = {x.tool_call_id for x in sent[i + 1 : i + 1 + len(m.tool_calls)]}
                assert answered == {call.id for call in m.tool_calls}

    async def test_a_trailing_unanswered_call_in_the_summarised_part_is_reduced_to_text(self):
        """A dangling call is sent as text naming what was called, never as a tool call."""
        c = Convo()
        c.user("start")
        c.call("bash", {"command": "make"}, big("make", 200))
        c.calls([("read_file", {"path": "x.py"}, None, True)], text="Reading x")
        c.user("next request")
        c.say("ok")
        summarizer = recording(TAGGED)
        p = CompactionPlan.build(settings(retain_last_turns=1), target_tokens=2000, fixed_tokens=0)
        await summarize(c.messages, p, COUNTER, summarizer, instructions="x")
        sent = summarizer.calls[0][0]
        assert not sent[-1].tool_calls
        assert sent[-1].content == "Reading x\n[called: Viewed x.py]"

    async def test_long_current_turn_is_summarised_up_to_its_newest_steps(self):
        """One huge turn: the request and the newest steps stay, its older steps are summarised."""
        c = Convo()
        c.user("old request")
        c.say("old answer")
        request = c.user("rewrite the whole module")
        for i in range(30):
            c.call("bash", {"command": f"step {i}"}, big(f"s{i}", 60))
        summarizer = recording(TAGGED)
        out, result = await run(c.messages, summarizer)
        assert result.applied and result.reached_target
        assert out[2] is request
        assert out[-1] is c.messages[-1]
        sent = summarizer.calls[0][0]
        assert request in sent  # the summariser knows what the summarised steps were for
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []


class TestFailures:
    async def test_failing_summariser_falls_back_to_the_second(self):
        """A raising summariser hands over to the fallback; the reason says what failed."""
        c = long_session(turns=4, steps=2, lines=60)
        fallback = recording(TAGGED, model="fake/fallback")
        out, result = await run(c.messages, failing, fallback=fallback)
        assert result.applied and result.summary_model == "fake/fallback"
        assert "fake/down failed (ConnectionError: provider unreachable)" in result.reason

    async def test_both_failing_end_in_truncation_without_raising(self):
        """With no summary to be had, truncation keeps the newest turns."""
        c = long_session(turns=4, steps=2, lines=60)
        out, result = await run(c.messages, failing, fallback=recording("   "))
        assert result.applied and result.strategies == ("truncation",)
        assert "empty reply" in result.reason
        assert any(m.kind == "note" for m in out)
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []

    async def test_failure_with_truncation_disabled_leaves_the_history(self):
        """Nothing else allowed: the original comes back, not applied, with the reason."""
        c = long_session(turns=4, steps=2, lines=60)
        out, result = await run(c.messages, failing, cfg={"truncation": False})
        assert not result.applied and out == c.messages
        assert "failed" in result.reason and "truncation is disabled" in result.reason

    async def test_cancellation_is_not_swallowed(self):
        """Cancelling compaction (Esc) propagates instead of falling back."""

        async def cancelled(messages, instructions, max_tokens):
            raise asyncio.CancelledError

        c = long_session(turns=4, steps=2, lines=60)
        with pytest.raises(asyncio.CancelledError):
            await run(c.messages, cancelled)


class TestChunks:
    async def test_history_larger_than_the_window_is_summarised_in_parts(self):
        """Each call fits the summariser's window; parts are merged; every part's retain stays."""
        c = long_session(turns=8, steps=3, lines=60)
        seen: list[int] = []

        async def windowed(messages, instructions, max_tokens):
            seen.append(COUNTER.count_messages(messages) + COUNTER.count_text(instructions))
            part = "merge"
            if "This is part" in instructions:
                part = instructions.split("This is part ")[-1][:8]
            return f"<retain>item from {part}</retain><summary>summary of {part}</summary>"

        windowed.model = "fake/small"
        window = 6000
        out, result = await run(c.messages, windowed, summarizer_window=window)
        assert result.applied and len(seen) > 2
        assert max(seen) <= window
        assert "item from 1 of" in out[0].content and "item from 2 of" in out[0].content
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []


class TestReplies:
    def test_unclosed_summary_tag_is_accepted(self):
        """A reply cut off at max_tokens still yields its summary."""
        assert parse_reply("<retain>a</retain><summary>cut off mid") == ("a", "cut off mid")

    def test_retain_only_reply_keeps_a_placeholder_summary(self):
        """Only a retain block: the summary says so rather than being empty."""
        retain, summary = parse_reply("<retain>ref=r_1</retain>")
        assert retain == "ref=r_1" and summary

    def test_empty_reply_fails(self):
        """Whitespace is not a summary."""
        with pytest.raises(SummaryFailed):
            parse_reply("  \n ")

    def test_instructions_without_directives_are_the_base(self):
        """No directives, no user words: just the base instructions."""
        assert build_instructions(settings()).endswith("Do not call tools.")
