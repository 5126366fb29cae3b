"""Switching models across providers with reasoning in the history: what one provider needs back
(Anthropic's signed blocks) the other rejects (the strict local OpenAI server answers 400 to
`thinking_blocks` or `reasoning_content` in a message, as DeepSeek does), so each request must
carry only what its own provider takes.

`/model NAME` reopens the tab's session from the store under a config naming the new model
(frontends/tui/widgets/tab_opening.py switch_model); `switched` does the same, with the new server's
api_base (the app keeps the configured one, which would point at the other fake).
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import AppServices
from testkit.fake_anthropic import Reply
from testkit.fake_openai import Reply as OpenAIReply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.anthropic_fixtures import MODEL, thinking_services

PLAN = "Read the folder first, then answer."


def switched(services: AppServices, name: str, api_base: str) -> AppServices:
    """The services `/model NAME` leaves: the same store and settings, another model."""
    config = services.config
    model = dataclasses.replace(config.model, name=name, api_base=api_base, context_window=32_000)
    return dataclasses.replace(services, config=dataclasses.replace(config, model=model))


async def crash_at_first_tool_call(session, prompt: str) -> None:
    """The turn stops where a killed process would: the reply stored, its call unanswered."""
    turn = session.run_turn(prompt)
    async for event in turn:
        if isinstance(event, ev.ToolCallStarted):
            break
    await turn.aclose()


def errors(events: list) -> list:
    return of_type(events, ev.ErrorEvent)


class TestAcrossProviders:
    @pytest.mark.parametrize("mid_turn", [False, True])
    async def test_anthropic_with_thinking_to_openai_compatible(
        self, anthropic, server, tmp_path, workspace, mid_turn
    ):
        """After turns that thought on Anthropic (one left mid tool-use), the OpenAI-compatible
        server gets no thinking blocks and no reasoning text, and accepts every request."""
        services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(reasoning=PLAN, tool_calls=[("list_dir", {"path": "."})]),
                Reply(text="done"),
                Reply(reasoning=PLAN, tool_calls=[("list_dir", {"path": "."})]),
            )
            await collect(session.run_turn("look"))
            if mid_turn:
                await crash_at_first_tool_call(session, "look again")
            await session.close()
            other = switched(services, "openai/fake-model", server.base_url)
            resumed = await other.resume_session(session.session_id, yes=True)
            server.enqueue(OpenAIReply(tool_calls=[("list_dir", {"path": "."})]), OpenAIReply(text="fine"))
            events = await collect(resumed.run_turn("and now?"))
        finally:
            await services.close()
        assert not errors(events), errors(events)
        assert resumed.prompts.send_thinking is False
        for body in server.requests:
            sent = json.dumps(body["messages"])
            assert "thinking_blocks" not in sent and "reasoning_content" not in sent and PLAN not in sent
        assert any(m.reasoning and m.reasoning.blocks for m in resumed.history)  # kept, not sent

    async def test_openai_compatible_reasoning_to_anthropic_with_thinking(
        self, anthropic, server, tmp_path, workspace
    ):
        """reasoning_content stored on OpenAI-compatible replies never reaches Anthropic; a
        tool-use turn begun there continues without thinking (one notice), and the next turn
        thinks again."""
        config = make_config(server, tmp_path / "t.db", model={"thinking_budget_tokens": 2048})
        from agent_tui.compose.factory import build_services

        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(OpenAIReply(reasoning=PLAN, tool_calls=[("list_dir", {"path": "."})]))
            await crash_at_first_tool_call(session, "look")
            await session.close()
            other = switched(services, MODEL, anthropic.base_url)
            resumed = await other.resume_session(session.session_id, yes=True)
            anthropic.enqueue(Reply(text="done"), Reply(reasoning="now I may think", text="ok"))
            events = await collect(resumed.run_turn("go on"))
            later = await collect(resumed.run_turn("next"))
        finally:
            await services.close()
        assert not errors(events) and not errors(later), errors(events) + errors(later)
        assert resumed.prompts.send_thinking is True
        assert any("without extended thinking" in n.message for n in of_type(events, ev.Notice))
        first, second = anthropic.requests
        assert "thinking" not in first and second["thinking"]["type"] == "enabled"
        for body in (first, second):
            assert PLAN not in json.dumps(body) and "reasoning_content" not in json.dumps(body)
