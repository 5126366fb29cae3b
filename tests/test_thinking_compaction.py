"""Compaction, summaries and recall with reasoning in the history.

A thinking block lives on the same Message as its tool calls, so no strategy can split them; what
must hold is that compaction in the middle of a tool-use turn keeps that turn's blocks and
signatures (the strict local Anthropic server checks them on the next request), that the
summariser never reads reasoning, and that recall and range reads leave it out.
"""

from __future__ import annotations

import json

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.anthropic_rules import sign
from testkit.fake_anthropic import Reply
from testkit.fake_openai import Reply as OpenAIReply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.anthropic_fixtures import assistant_turns, thinking_services

PLAN = "Now list the folder, compact the context, and then answer."
OLD = "pondering the zebrafish migration route"
PADDING = " ".join(f"detail {i} of the earlier explanation about the build" for i in range(120))


def is_summary_request(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


def scripted(chat: list[Reply]):
    """Answers summary requests with a summary and every other request from `chat`, in order."""

    def respond(body: dict) -> Reply:
        if is_summary_request(body):
            return Reply(text="<retain>a.txt</retain><summary>The user asked about the build.</summary>")
        return chat.pop(0)

    return respond


class TestCompactionMidTurn:
    async def test_compaction_inside_a_thinking_tool_turn_keeps_its_blocks_valid(
        self, anthropic, tmp_path, workspace
    ):
        """Three earlier turns that thought, then a turn whose second step calls compact_context:
        the summariser sees no reasoning, the earlier turns are summarised away, and the step
        after compaction sends the turn's block unchanged — the server accepts it."""
        chat = [Reply(reasoning=f"{OLD} {n}", text=PADDING) for n in range(3)]
        chat += [
            Reply(reasoning=PLAN, tool_calls=[("list_dir", {"path": "."})]),
            Reply(tool_calls=[("compact_context", {})]),
            Reply(text="All done."),
        ]
        anthropic.responder = scripted(chat)
        services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
        try:
            session = await services.new_session(yes=True)
            for n in range(3):
                await collect(session.run_turn(f"explain part {n}"))
            events = await collect(session.run_turn("list, compact, answer"))
        finally:
            await services.close()
        assert not of_type(events, ev.ErrorEvent), of_type(events, ev.ErrorEvent)
        finished = of_type(events, ev.CompactionFinished)
        assert finished and finished[0].result.applied, finished
        summaries = [b for b in anthropic.requests if is_summary_request(b)]
        assert summaries
        for body in summaries:
            text = json.dumps(body)
            assert OLD not in text and PLAN not in text and "thinking" not in body
            assert "signature" not in text and "redacted_thinking" not in text
        after = [b for b in anthropic.requests if not is_summary_request(b)][-1]
        assert OLD not in json.dumps(after)  # earlier turns are summarised away
        block = {"type": "thinking", "thinking": PLAN, "signature": sign(PLAN)}
        summary, first_step, second_step = assistant_turns(after)
        assert summary[0]["text"].startswith("[Summary of the ")
        assert first_step[0] == block and [b["type"] for b in second_step] == ["tool_use"]
        assert after["thinking"]["type"] == "enabled"
        kept = [m for m in session.history if m.reasoning is not None and m.reasoning.blocks]
        assert [m.reasoning.blocks[0].thinking for m in kept] == [PLAN]
        assert [c.name for c in kept[0].tool_calls] == ["list_dir"]


class TestRecallLeavesReasoningOut:
    async def test_recall_and_range_reads_do_not_see_reasoning(self, server, tmp_path, workspace):
        """The model's reasoning is in the transcript but recall finds only what was said, and a
        transcript range read shows the reply without its reasoning."""
        services = await build_services(make_config(server, tmp_path / "r.db"), workspace=workspace)
        try:
            first = await services.new_session(yes=True)
            server.enqueue(OpenAIReply(reasoning=OLD, text="The answer is the okapi."))
            await collect(first.run_turn("which animal?"))
            await first.close()
            session = await services.new_session(yes=True)
            server.enqueue(
                OpenAIReply(tool_calls=[("recall", {"query": "zebrafish migration"})]),
                OpenAIReply(tool_calls=[("recall", {"query": "okapi"})]),
                OpenAIReply(text="ok"),
            )
            await collect(session.run_turn("search the archive"))
            stored = await services.store.sessions.transcript(first.session_id)
            assert stored[1].reasoning.text == OLD  # kept in the transcript
            rendered, _ = await services.store.transcript.render(first.session_id)
        finally:
            await services.close()
        results = [m.content for m in session.history if m.role == "tool"]
        assert "pondering" not in results[0] and "okapi" not in results[0]
        assert "okapi" in results[1] and "pondering" not in results[1]
        assert "okapi" in "\n".join(rendered) and "pondering" not in "\n".join(rendered)


BIG = " ".join(f"thought {i}: weigh the listing against the earlier files" for i in range(400))


class TestTargetCountsSentBlocks:
    async def test_compaction_mid_turn_counts_the_blocks_it_cannot_drop(self, anthropic, tmp_path, workspace):
        """The tool-use turn's thinking block goes out with every step and no strategy removes
        it: the chain counts it with what stays, so the size compaction reports is the size the
        meter measures next (it read a block's size low), and the target is met with it."""
        (workspace / "big.txt").write_text("".join(f"row {i} of the big listing file\n" for i in range(700)))
        chat = [
            Reply(tool_calls=[("read_file", {"path": "big.txt"})]) if n % 2 == 0 else Reply(text="Read.")
            for n in range(6)
        ]
        chat += [
            Reply(reasoning=BIG, tool_calls=[("list_dir", {"path": "."})]),
            Reply(tool_calls=[("compact_context", {})]),
            Reply(text="All done."),
        ]
        anthropic.responder = scripted(chat)
        model = {"context_window": 24_000, "max_output_tokens": 2000}
        services = await thinking_services(
            anthropic, tmp_path / "t.db", workspace, model=model, compaction={"summarization": False}
        )
        try:
            session = await services.new_session(yes=True)
            for n in range(3):
                await collect(session.run_turn(f"read big.txt, round {n}"))
            events = await collect(session.run_turn("list, compact, answer"))
        finally:
            await services.close()
        assert not of_type(events, ev.ErrorEvent), of_type(events, ev.ErrorEvent)
        last = max(i for i, e in enumerate(events) if isinstance(e, ev.CompactionFinished))
        result = events[last].result
        after = next(e.budget for e in events[last:] if isinstance(e, ev.BudgetMeasured))
        assert after.reasoning > 4000
        assert abs(result.tokens_after - after.used) <= 0.1 * after.used, (result, after.used)
        assert after.used <= 0.6 * after.effective_window
