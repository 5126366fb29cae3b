"""`/compact <instructions>` always makes a summary that follows them, or says why it could not
(issue 44 item 6, issue 43 Low 9): it used to only clear tool outputs and say nothing."""

from __future__ import annotations

import json

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type


def is_summary_request(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


def model(body: dict) -> Reply:
    if is_summary_request(body):
        return Reply(text="<retain>step 1, step 2</retain><summary>Steps 1 and 2 listed rows.</summary>")
    ran = sum(1 for m in body["messages"] if m["role"] == "tool")
    if ran < 3:
        return Reply(tool_calls=[("bash", {"command": f"echo step {ran + 1}; seq 1 400"})])
    return Reply(text="Listed.")


async def one_long_turn(srv: FakeOpenAI, workspace, tmp_path):
    """One turn of three steps: the only turn, so `retain_last_turns` keeps it all."""
    services = await build_services(make_config(srv, tmp_path / "c.db", window=32_000), workspace=workspace)
    session = await services.new_session(yes=True)
    await collect(session.run_turn("list rows in three steps"))
    return services, session


class TestCompactInstructions:
    async def test_instructions_make_a_summary_that_follows_them(self, workspace, tmp_path):
        """One turn of three steps, well under every threshold: `/compact keep the step numbers`
        sends the instructions to the summariser, the history holds its summary, and the line
        says the summary follows them."""
        with FakeOpenAI(window=32_000, responder=model) as srv:
            services, session = await one_long_turn(srv, workspace, tmp_path)
            try:
                events = await collect(session.compact("keep the step numbers"))
                result = of_type(events, ev.CompactionFinished)[0].result
                assert "summarization" in result.strategies, result
                summaries = [b for b in srv.requests if is_summary_request(b)]
                assert summaries and "keep the step numbers" in json.dumps(summaries[-1])
                assert any(m.kind == "summary" for m in session.history)
                assert "the summary follows your instructions" in result.describe()
            finally:
                await services.close()

    async def test_instructions_that_cannot_be_used_are_named(self, workspace, tmp_path):
        """With only the newest message there is nothing to summarise: the result says the
        instructions went unused instead of saying nothing."""
        with FakeOpenAI(window=32_000, responder=model) as srv:
            services = await build_services(
                make_config(srv, tmp_path / "c.db", window=32_000), workspace=workspace
            )
            try:
                session = await services.new_session(yes=True)
                srv.enqueue(Reply(text="hi"))
                await collect(session.run_turn("hello"))
                events = await collect(session.compact("keep the step numbers"))
                result = of_type(events, ev.CompactionFinished)[0].result
                assert "summarization" not in result.strategies
                assert "instructions" in result.describe() and "not used" in result.describe()
            finally:
                await services.close()


class TestResumeNote:
    def test_the_note_names_a_summary_only_when_one_exists(self):
        """Outputs cleared and no summary: the resumed chat's note says so, never 'a summary'."""
        from agent_tui.base.messages import Message
        from agent_tui.frontends.tui.widgets.session_opening import compacted_notice

        cleared = [
            Message(role="user", content="list"),
            Message(role="tool", content="[tool output trimmed; ref=r_0123456789 (bash, 2 KB, 400 lines)]"),
        ]
        said = compacted_notice(cleared)
        assert said is not None and "summary" not in said.replace("no summary", "")
        assert "tool outputs cleared" in said
        summarised = [
            Message(role="user", content="[Kept]", kind="retain"),
            Message(role="assistant", content="s", kind="summary"),
        ]
        assert "a summary of the turns above" in (compacted_notice(summarised) or "")
        assert compacted_notice([Message(role="user", content="hi")]) is None
