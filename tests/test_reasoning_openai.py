"""Reasoning models on OpenAI-compatible servers (llama.cpp, vLLM, DeepSeek): `reasoning_content`
streams as reasoning events, is stored with the assistant message, counts in usage, and is never
sent back — the strict local server answers 400 to a request that carries it, as DeepSeek does."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type

THOUGHT = "The user wants the file. I should read a.txt first, then answer briefly."


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(make_config(server, tmp_path / "agent.db"), workspace=workspace)
    yield svc
    await svc.close()


class TestReasoningContent:
    async def test_multi_step_tool_use_streams_stores_and_never_sends_reasoning(
        self, server, services, workspace
    ):
        """Two steps, each thinking first: deltas come as reasoning events before the answer,
        each step's message keeps its reasoning, and no request carries it back."""
        (workspace / "a.txt").write_text("alpha\n")
        server.enqueue(
            Reply(reasoning=THOUGHT, tool_calls=[("read_file", {"path": "a.txt"})]),
            Reply(reasoning="It says alpha. Answer with that.", text="The file says alpha."),
        )
        session = await services.new_session()
        events = await collect(session.run_turn("what is in a.txt?"))
        assert events[-1].stop_reason == "done", [e for e in events if isinstance(e, ev.ErrorEvent)]
        thought = "".join(e.text for e in of_type(events, ev.ReasoningDelta))
        assert thought == THOUGHT + "It says alpha. Answer with that."
        kinds = [type(e) for e in events if isinstance(e, (ev.ReasoningDelta, ev.TextDelta))]
        assert kinds.index(ev.TextDelta) > kinds.index(ev.ReasoningDelta)
        finished = of_type(events, ev.ReasoningFinished)
        assert len(finished) == 2 and all(f.tokens > 0 for f in finished)
        usage = [e.usage for e in of_type(events, ev.UsageReported)]
        assert [u.reasoning for u in usage] == [f.tokens for f in finished]
        assert all(u.output >= u.reasoning for u in usage)
        for request in server.requests:
            assert all("reasoning_content" not in m for m in request["messages"])
        stored = await services.store.sessions.transcript(session.session_id)
        replies = [m for m in stored if m.role == "assistant"]
        assert [m.reasoning.text if m.reasoning else None for m in replies] == [
            THOUGHT,
            "It says alpha. Answer with that.",
        ]
        assert replies[0].tool_calls and replies[1].content == "The file says alpha."

    async def test_a_reply_that_only_thinks_is_kept(self, server, services):
        """A reply with reasoning and no answer text still ends the turn and is stored."""
        server.enqueue(Reply(reasoning="Nothing to say."))
        session = await services.new_session()
        events = await collect(session.run_turn("hm"))
        assert events[-1].stop_reason == "done"
        stored = await services.store.sessions.transcript(session.session_id)
        assert stored[-1].role == "assistant" and stored[-1].reasoning.text == "Nothing to say."
        events = await collect(session.run_turn("and now?"))
        assert events[-1].stop_reason == "done"
