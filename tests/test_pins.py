"""Pins (issue 44 item 1): `/pin TEXT` in headless `run` (the same registry effect the TUI and
an editor run), `/pin` on stored lines, `/unpin`, the budget's clear message, and pins in
/context; the model's pin tool is covered with the task list (tests/test_side_state_loop.py)."""

from __future__ import annotations

import json

from agent_tui.compose.factory import build_services
from agent_tui.core.commands import Front, parse
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, run_agent_tui, server_flags

PIN = "The staging database is read-only; never run migrations there."


class TestHeadlessPin:
    def test_run_pin_then_continue_sends_the_pin(self, tmp_path, workspace):
        """`run --continue "/pin TEXT"` pins into the session without a model call; the next
        `run --continue` sends the pin's exact text in its request, in a section of its own."""
        with FakeOpenAI() as srv:
            db = tmp_path / "p.db"
            srv.enqueue(Reply(text="hi"))
            assert run_agent_tui(["run", "hello", *server_flags(srv, db)], workspace).returncode == 0
            asked = len(srv.requests)
            out = run_agent_tui(["run", "--continue", f"/pin {PIN}", *server_flags(srv, db)], workspace)
            assert out.returncode == 0, out.stderr
            assert "Pinned p1" in out.stdout
            assert len(srv.requests) == asked, "a slash command makes no model call"
            srv.enqueue(Reply(text="ok"))
            out = run_agent_tui(["run", "--continue", "next", *server_flags(srv, db)], workspace)
            assert out.returncode == 0, out.stderr
            sent = json.dumps(srv.requests[-1])
            assert "[Pinned" in sent and json.dumps(PIN)[1:-1] in sent


async def session_on(srv: FakeOpenAI, tmp_path, workspace, **sections):
    services = await build_services(make_config(srv, tmp_path / "s.db", **sections), workspace=workspace)
    return services, await services.new_session(yes=True)


async def run(session, services, text: str):
    from agent_tui.core.driver import SessionDriver
    from agent_tui.frontends.cli.run_slash import command_reply

    return await command_reply(SessionDriver(services, session), text)


class TestPinCommands:
    async def test_pin_stored_lines_and_unpin(self, tmp_path, workspace):
        """`/pin r_…:L2-3` pins those lines of the stored output, verbatim; /unpin removes it
        and the next request no longer holds it."""
        with FakeOpenAI() as srv:
            services, session = await session_on(srv, tmp_path, workspace)
            try:
                srv.enqueue(
                    Reply(tool_calls=[("bash", {"command": "printf 'one\\ntwo\\nthree\\nfour\\n'"})]),
                    Reply(text="ran"),
                )
                await collect(session.run_turn("run it"))
                ref = next(m.output_ref for m in session.history if m.output_ref is not None)
                reply = await run(session, services, f"/pin {ref.id}:L2-3")
                assert "Pinned p1" in reply.plain() and f"{ref.id} lines 2-3" in reply.plain()
                assert session.side.state.pins[0].text == "two\nthree"
                context = await run(session, services, "/context")
                assert "p1 ·" in context.plain() and "tokens" in context.plain()
                srv.enqueue(Reply(text="ok"))
                await collect(session.run_turn("next"))
                assert "two\\nthree" in json.dumps(srv.requests[-1])
                reply = await run(session, services, "/unpin p1")
                assert "Unpinned p1" in reply.plain()
                srv.enqueue(Reply(text="ok"))
                await collect(session.run_turn("again"))
                assert "[Pinned" not in json.dumps(srv.requests[-1])
            finally:
                await services.close()

    async def test_a_full_budget_says_so_and_pins_nothing(self, tmp_path, workspace):
        """Past `[compaction] pin_budget_tokens` the reply names the budget, what is left and
        what to do; the earlier pins stay."""
        with FakeOpenAI() as srv:
            services, session = await session_on(
                srv, tmp_path, workspace, compaction={"pin_budget_tokens": 30}
            )
            try:
                assert "Pinned p1" in (await run(session, services, "/pin keep the step numbers")).plain()
                reply = await run(session, services, "/pin " + " ".join(f"word{i}" for i in range(60)))
                assert reply.level == "warning"
                assert "Pins are full" in reply.text and "30-token pin budget" in reply.text
                assert [p.id for p in session.side.state.pins] == ["p1"]
            finally:
                await services.close()

    def test_every_front_end_offers_pin_and_unpin(self):
        """One registry: the TUI, an editor and `run` all parse /pin and /unpin."""
        for front in (Front.TUI, Front.EDITOR, Front.RUN):
            assert parse("/pin x", front) is not None and parse("/unpin p1", front) is not None


class TestPinsTravel:
    async def test_a_fork_keeps_the_pins_and_the_task_list(self, tmp_path, workspace):
        """/fork copies the state beside the conversation: the fork resumes with the pin."""
        from agent_tui.store.forks import fork_session

        with FakeOpenAI() as srv:
            services, session = await session_on(srv, tmp_path, workspace)
            try:
                srv.enqueue(Reply(text="hi"))
                await collect(session.run_turn("hello"))
                await run(session, services, f"/pin {PIN}")
                info = await fork_session(services.store.sessions, session.session_id)
                fork = await services.resume_session(info.id, yes=True)
                assert [p.text for p in fork.side.state.pins] == [PIN]
            finally:
                await services.close()

    async def test_an_editor_is_told_of_a_pin_the_model_set(self, tmp_path, workspace):
        """ACP: the model's pin comes as a message once, the task list as plan entries."""
        from agent_tui.agent import events as ev
        from agent_tui.context.side_state import Pin, TodoItem
        from agent_tui.frontends.acp.translate import TurnUpdates

        with FakeOpenAI() as srv:
            services, session = await session_on(srv, tmp_path, workspace)
            try:
                updates = TurnUpdates(session)
                event = ev.SideStateChanged(
                    (TodoItem("Run tests", "pending", "Running tests"),), (Pin("p1", PIN, "model"),), 2000
                )
                first = updates.updates(event)
                assert first[0].session_update == "plan" and first[0].entries[0].content == "Run tests"
                assert PIN in json.dumps([u.model_dump() for u in first[1:]])
                assert len(updates.updates(event)) == 1, "said once"
            finally:
                await services.close()


class TestPinAMessage:
    async def test_pin_m_n_pins_that_transcript_message(self, tmp_path, workspace):
        """`/pin m_1` pins the text of transcript message 1 (the user's first words), verbatim."""
        with FakeOpenAI() as srv:
            services, session = await session_on(srv, tmp_path, workspace)
            try:
                srv.enqueue(Reply(text="noted"))
                await collect(session.run_turn("the release branch is release/2.3"))
                reply = await run(session, services, "/pin m_1")
                assert "Pinned p1 from message 1" in reply.plain()
                assert "the release branch is release/2.3" in session.side.state.pins[0].text
                assert (await run(session, services, "/pin m_99")).level == "warning"
            finally:
                await services.close()

    async def test_pin_a_range_pins_those_messages(self, tmp_path, workspace):
        """`/pin m_1-2` (a summarised range, as the compaction record names it) pins the text
        of those messages: the user's words and the reply."""
        with FakeOpenAI() as srv:
            services, session = await session_on(srv, tmp_path, workspace)
            try:
                srv.enqueue(Reply(text="noted: release/2.3"))
                await collect(session.run_turn("the release branch is release/2.3"))
                reply = await run(session, services, "/pin m_1-2")
                assert "Pinned p1 from messages 1-2" in reply.plain()
                text = session.side.state.pins[0].text
                assert "the release branch is release/2.3" in text and "noted: release/2.3" in text
            finally:
                await services.close()
