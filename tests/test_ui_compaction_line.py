"""Found by trying the TUI as a new user (issue 32, QA lane): after a compaction that only cleared
old tool outputs, the chat said "the model now works from 45 of 45 messages (earlier turns
summarised or trimmed…)" — no turn was summarised; the line must say what the model now sees."""

from __future__ import annotations

from agent_tui.context.compaction.result import CompactResult
from agent_tui.frontends.tui.compaction_line import compaction_line


def result(messages_before: int, messages_after: int, strategies: tuple[str, ...]) -> CompactResult:
    return CompactResult(
        tokens_before=11_000,
        tokens_after=6_000,
        messages_before=messages_before,
        messages_after=messages_after,
        strategies=strategies,
        duration=0.01,
        summary_model=None,
        reached_target=True,
        reason="",
        applied=True,
    )


class TestWhatTheModelNowSees:
    def test_tool_clearing_alone_says_every_message_stays_with_outputs_cut(self):
        """Same count before and after: every message stays, the old outputs are cut to refs."""
        line = compaction_line(result(45, 45, ("tool_clearing",)), "auto")
        assert "45 of 45" not in line and "summarised" not in line
        assert "still sees all 45 messages" in line
        assert "older tool outputs cut to their refs" in line

    def test_a_summary_says_how_many_messages_the_model_works_from(self):
        """Fewer messages after: the model works from N of M, the rest summarised or trimmed."""
        line = compaction_line(result(230, 4, ("tool_clearing", "summarization")), "forced")
        assert "works from 4 of 230 messages" in line and "the chat above keeps them all" in line

    def test_a_summary_keeping_the_count_still_says_works_from(self):
        """A summary of a short chat can keep the count (4 → 4): it still replaced turns."""
        line = compaction_line(result(4, 4, ("summarization",)), "forced")
        assert "works from 4 of 4 messages" in line and "still sees all" not in line


class TestHandOffOffer:
    def test_an_automatic_compaction_offers_handoff_a_manual_one_does_not(self):
        """At the threshold (auto or blocked) the line offers /handoff instead; after /compact
        (the user's choice) it does not."""
        assert "/handoff [goal]" in compaction_line(result(45, 4, ("summarization",)), "auto")
        assert "/handoff [goal]" in compaction_line(result(45, 4, ("summarization",)), "blocked")
        assert "/handoff" not in compaction_line(result(45, 4, ("summarization",)), "forced")
