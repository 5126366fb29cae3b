"""What compaction drops is named: the line ending each summary and truncation note gives the
transcript range it replaced, ranges chain across compactions, and the newest user messages
ride along verbatim in the retain block."""

from __future__ import annotations

from agent_tui.base.messages import Message
from agent_tui.context.compaction import TranscriptIndex, check_invariants, compact, range_line
from agent_tui.context.compaction.user_words import carried, newest_user_messages, render
from tests.support.compaction import COUNTER, long_session, settings, tokens

FACT = "the deploy code is ZEBRA-7431"


async def tagged(messages, instructions, max_tokens):
    return "<retain>Decision: WAL</retain><summary>Work so far, briefly.</summary>"


tagged.model = "fake/tagged"


def stored(messages: list[Message], offset: int = 0) -> TranscriptIndex:
    """The index the store would give if `messages` were transcript seq offset+1.."""
    rows = []
    for i, m in enumerate(messages, start=offset + 1):
        first = m.tool_calls[0].id if m.tool_calls else None
        rows.append((i, m.id, m.tool_call_id, first))
    return TranscriptIndex.build(rows)


def session_with_fact(turns: int = 8):
    c = long_session(turns=turns)
    c.messages[0] = Message(role="user", content=f"Request 0: {FACT}. Please look at module_0.py")
    return c


async def run(messages, share, index, **kw):
    cfg = kw.pop("cfg", settings(tool_clearing=False, pruning=False))
    return await compact(
        messages,
        counter=COUNTER,
        settings=cfg,
        target_tokens=int(tokens(messages) * share),
        fixed_tokens=0,
        transcript=index,
        **kw,
    )


class TestRangeLine:
    async def test_summary_ends_with_the_range_it_replaced(self):
        """The summary's last line names m_1-<last dropped> and how to read and search it."""
        c = session_with_fact()
        out, result = await run(c.messages, 0.3, stored(c.messages), summarizer=tagged)
        assert result.strategies == ("summarization",)
        summary = next(m for m in out if m.kind == "summary")
        first_kept = next(i for i, m in enumerate(c.messages) if m.id == out[2].id)
        assert summary.content.endswith(range_line(1, first_kept))
        assert result.replaced == (1, first_kept)
        assert 'read_result(ref_id="m_1-' in summary.content and "recall(" in summary.content
        assert check_invariants(c.messages, out, counter=COUNTER, result=result) == []
        assert result.tokens_after <= result.target_tokens

    async def test_truncation_note_ends_with_the_range(self):
        """Truncation only: the note standing in for dropped messages names their range too."""
        cfg = settings(tool_clearing=False, pruning=False, summarization=False, keep_user_messages_tokens=0)
        c = session_with_fact()
        out, result = await run(c.messages, 0.3, stored(c.messages), cfg=cfg)
        assert result.strategies == ("truncation",)
        note = next(m for m in out if m.kind == "note")
        assert note.content.splitlines()[-1].startswith("[Earlier messages 1-")
        assert result.reached_target
        assert FACT not in "".join(m.content or "" for m in out)

    async def test_a_second_compaction_covers_the_first_range(self):
        """Dropping an earlier summary extends the new range back to where that one began."""
        c = session_with_fact(turns=6)
        index = stored(c.messages)
        once, _ = await run(c.messages, 0.3, index, summarizer=tagged)
        more = long_session(turns=4).messages
        later = stored(more, offset=len(c.messages))
        both = TranscriptIndex({**index.by_id, **later.by_id}, {**index.by_call, **later.by_call})
        twice, result = await run(once + more, 0.3, both, summarizer=tagged)
        assert result.replaced is not None and result.replaced[0] == 1
        summary = next(m for m in twice if m.kind == "summary")
        assert f"m_1-{result.replaced[1]}" in summary.content.splitlines()[-1]

    async def test_trimmed_outputs_still_count_as_their_transcript_messages(self):
        """Clearing gives a trimmed output a new id; the index finds it by its call id."""
        c = long_session(turns=6)
        index = stored(c.messages)
        cfg = settings(pruning=False)
        out, result = await run(c.messages, 0.05, index, summarizer=tagged, cfg=cfg)
        assert result.strategies[0] == "tool_clearing"
        tool = next(m for m in c.messages if m.role == "tool")
        assert index.seq_of(tool.with_content("[tool output trimmed]")) == index.seq_of(tool)

    async def test_without_a_transcript_no_line_is_added(self):
        """No store (no index): nothing can be read back, so no line claims it can."""
        c = session_with_fact()
        out, result = await run(c.messages, 0.3, None, summarizer=tagged)
        assert result.replaced is None
        assert "Earlier messages" not in "".join(m.content or "" for m in out)

    def test_outside_counts_transcript_messages_not_in_the_window(self):
        """/context's number: transcript messages the history no longer holds verbatim."""
        c = long_session(turns=2)
        index = stored(c.messages)
        assert index.outside(c.messages, len(c.messages)) == 0
        assert index.outside(c.messages[5:], len(c.messages)) == 5


class TestUserWordsVerbatim:
    async def test_retain_block_keeps_the_newest_user_messages(self):
        """The summary's retain block quotes the user's own words, newest that fit."""
        c = session_with_fact()
        out, _ = await run(c.messages, 0.3, stored(c.messages), summarizer=tagged)
        retain = out[0]
        assert retain.kind == "retain" and f"user: Request 0: {FACT}." in retain.content

    async def test_off_with_zero(self):
        """keep_user_messages_tokens = 0: only what the summariser kept."""
        c = session_with_fact()
        cfg = settings(tool_clearing=False, pruning=False, keep_user_messages_tokens=0)
        out, _ = await run(c.messages, 0.3, stored(c.messages), summarizer=tagged, cfg=cfg)
        assert FACT not in out[0].content

    def test_carried_forward_from_an_older_retain_block(self):
        """Multi-line messages survive the round trip through a retain block."""
        said = ["first line\nsecond line", "never touch migrations/"]
        old = Message(
            role="user", content="[Kept verbatim]\n" + render(said) + "\nStored outputs: x", kind="retain"
        )
        assert carried(old) == said
        newer = Message(role="user", content="use WAL mode")
        assert newest_user_messages([old, newer], COUNTER, 1000) == [*said, "use WAL mode"]
        assert newest_user_messages([old, newer], COUNTER, 12) == ["use WAL mode"]
