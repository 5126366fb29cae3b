"""Anthropic extended thinking through the real loop: the local server streams signed thinking
blocks and rejects (400) a tool-use turn whose thinking block is missing or altered, as the real
API does — so a passing turn proves the blocks went back unchanged where they must."""

from __future__ import annotations

from agent_tui.agent import events as ev
from testkit.anthropic_rules import sign
from testkit.fake_anthropic import Reply
from tests.support.agent_fixtures import collect, of_type
from tests.support.anthropic_fixtures import assistant_turns, block_types, thinking_services

PLAN = "The user wants a.txt. I will read it, then list the folder, then answer."


def errors(events: list) -> list:
    return of_type(events, ev.ErrorEvent)


async def crash_at_first_tool_call(session, prompt: str) -> None:
    """Run a turn until its first tool call starts, then stop as a killed process would: the
    reply is stored, its call has no result."""
    turn = session.run_turn(prompt)
    async for event in turn:
        if isinstance(event, ev.ToolCallStarted):
            break
    await turn.aclose()


class TestToolUseTurns:
    async def test_multi_step_tool_use_sends_the_turns_blocks_back_unchanged(
        self, anthropic, tmp_path, workspace
    ):
        """The first step thinks; the next steps of that turn send its block back byte for byte
        (the server checks the signature), the next turn does not send it at all."""
        (workspace / "a.txt").write_text("alpha\n")
        services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(reasoning=PLAN, tool_calls=[("read_file", {"path": "a.txt"})]),
                Reply(tool_calls=[("list_dir", {"path": "."})]),
                Reply(text="It says alpha."),
                Reply(reasoning="Short answer.", text="Yes."),
            )
            first = await collect(session.run_turn("what is in a.txt?"))
            second = await collect(session.run_turn("sure?"))
            stored = await services.store.sessions.transcript(session.session_id)
        finally:
            await services.close()
        assert not errors(first) and not errors(second), errors(first) + errors(second)
        assert not of_type(first, ev.Notice), of_type(first, ev.Notice)
        assert "".join(e.text for e in of_type(first, ev.ReasoningDelta)) == PLAN
        bodies = anthropic.requests
        assert len(bodies) == 4 and all(b["thinking"]["budget_tokens"] == 2048 for b in bodies)
        block = {"type": "thinking", "thinking": PLAN, "signature": sign(PLAN)}
        assert assistant_turns(bodies[1])[0][0] == block
        assert assistant_turns(bodies[2])[0][0] == block
        assert block_types(bodies[2]) == [["thinking", "tool_use"], ["tool_use"]]
        assert "thinking" not in str(block_types(bodies[3]))
        assert all(b["max_tokens"] > 2048 for b in bodies)
        assert stored[1].reasoning.blocks[0].signature == sign(PLAN)

    async def test_redacted_blocks_round_trip(self, anthropic, tmp_path, workspace):
        """A redacted block's sealed data goes back as received, after the thinking block."""
        services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(
                    reasoning="hm",
                    redacted_thinking=("hidden one",),
                    tool_calls=[("list_dir", {"path": "."})],
                ),
                Reply(text="done"),
            )
            events = await collect(session.run_turn("look"))
        finally:
            await services.close()
        assert not errors(events), errors(events)
        sent = assistant_turns(anthropic.requests[1])[0]
        assert [b["type"] for b in sent] == ["thinking", "redacted_thinking", "tool_use"]
        assert "hidden one" not in sent[1]["data"]

    async def test_through_litellm_too(self, anthropic, tmp_path, workspace):
        """`[provider] transport = "litellm"`: litellm's thinking_blocks come back as the same
        blocks, and litellm sends them back in the tool-use turn."""
        services = await thinking_services(
            anthropic, tmp_path / "t.db", workspace, provider={"transport": "litellm"}
        )
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(
                    reasoning=PLAN, redacted_thinking=("hidden",), tool_calls=[("list_dir", {"path": "."})]
                ),
                Reply(text="done"),
            )
            events = await collect(session.run_turn("look"))
        finally:
            await services.close()
        assert not errors(events), errors(events)
        sent = assistant_turns(anthropic.requests[1])[0]
        assert [b["type"] for b in sent] == ["thinking", "redacted_thinking", "tool_use"]
        assert sent[0] == {"type": "thinking", "thinking": PLAN, "signature": sign(PLAN)}

    async def test_a_resumed_session_mid_tool_use_still_sends_the_blocks(
        self, anthropic, tmp_path, workspace
    ):
        """The process dies while a tool runs; a new session from the store repairs the call and
        the next request (its results merged with the new prompt: the same tool-use turn for the
        API) carries the stored block."""
        db = tmp_path / "t.db"
        services = await thinking_services(anthropic, db, workspace)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(Reply(reasoning=PLAN, tool_calls=[("list_dir", {"path": "."})]))
            await crash_at_first_tool_call(session, "look")
            session_id = session.session_id
        finally:
            await services.close()
        services = await thinking_services(anthropic, db, workspace)
        try:
            resumed = await services.resume_session(session_id, yes=True)
            anthropic.enqueue(Reply(text="done"))
            events = await collect(resumed.run_turn("go on"))
        finally:
            await services.close()
        assert not errors(events), errors(events)
        body = anthropic.requests[-1]
        assert body["thinking"]["type"] == "enabled"
        assert assistant_turns(body)[0][0] == {"type": "thinking", "thinking": PLAN, "signature": sign(PLAN)}

    async def test_a_turn_begun_without_thinking_continues_without_it(self, anthropic, tmp_path, workspace):
        """A tool-use turn begun with thinking off (an old session, another model): its next
        request goes without thinking, with one notice, and no 400; the next turn thinks again."""
        db = tmp_path / "t.db"
        services = await thinking_services(anthropic, db, workspace, budget=0)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(Reply(tool_calls=[("list_dir", {"path": "."})]))
            await crash_at_first_tool_call(session, "look")
            session_id = session.session_id
        finally:
            await services.close()
        services = await thinking_services(anthropic, db, workspace)
        try:
            resumed = await services.resume_session(session_id, yes=True)
            anthropic.enqueue(Reply(reasoning="x", text="done"), Reply(reasoning="fresh", text="again"))
            events = await collect(resumed.run_turn("go on"))
            later = await collect(resumed.run_turn("once more"))
        finally:
            await services.close()
        assert not errors(events) and not errors(later), errors(events) + errors(later)
        notices = [n.message for n in of_type(events, ev.Notice)]
        assert any("without extended thinking" in n for n in notices), notices
        assert "thinking" not in anthropic.requests[-2]
        assert anthropic.requests[-1]["thinking"]["type"] == "enabled"
        assert "".join(e.text for e in of_type(later, ev.ReasoningDelta)) == "fresh"
