"""The agent loop end to end: litellm over HTTP to the strict local server, real tools, real
SQLite. Each test reads what the server was sent and what the database holds."""

from __future__ import annotations

import asyncio
import json
import os
import threading

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.tools.permissions import ApprovalDecision
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "tool"]


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(make_config(server, tmp_path / "agent.db"), workspace=workspace)
    yield svc
    await svc.close()


class TestTurn:
    async def test_plain_reply_streams_and_persists(self, server, services):
        """Text deltas arrive in order; the transcript holds the user and assistant messages."""
        server.enqueue(Reply(text="hello there, how can I help"))
        session = await services.new_session()
        events = await collect(session.run_turn("hi"))
        deltas = "".join(e.text for e in of_type(events, ev.TextDelta))
        assert deltas == "hello there, how can I help"
        assert isinstance(events[-1], ev.TurnFinished) and events[-1].text == deltas
        assert of_type(events, ev.UsageReported)[0].usage.prompt_tokens > 0
        stored = await services.store.sessions.transcript(session.session_id)
        assert [(m.role, m.content) for m in stored] == [("user", "hi"), ("assistant", deltas)]
        system = server.requests[0]["messages"][0]
        assert system["role"] == "system" and "read_result" in system["content"]

    async def test_tool_calls_run_and_results_pair(self, server, services, workspace):
        """Several calls in one reply each get their result, in order, before the next call."""
        (workspace / "a.txt").write_text("alpha\nbeta\n")
        server.enqueue(
            Reply(tool_calls=[("read_file", {"path": "a.txt"}), ("list_dir", {"path": "."})]),
            Reply(text="done"),
        )
        session = await services.new_session()
        events = await collect(session.run_turn("look"))
        finished = of_type(events, ev.ToolCallFinished)
        assert [f.call.name for f in finished] == ["read_file", "list_dir"]
        results = tool_messages(server.requests[1])
        assert "alpha" in results[0]["content"] and "a.txt" in results[1]["content"]
        assert events[-1].text == "done"

    async def test_a_failing_tool_is_an_error_result_not_a_crash(self, server, services):
        """Unknown tools and bad arguments reach the model as error results."""
        server.enqueue(Reply(tool_calls=[("no_such_tool", {}), ("read_file", {})]), Reply(text="ok"))
        session = await services.new_session()
        events = await collect(session.run_turn("go"))
        assert all(f.is_error for f in of_type(events, ev.ToolCallFinished))
        assert events[-1].stop_reason == "done"
        assert "no_such_tool" in tool_messages(server.requests[1])[0]["content"]


class TestOffloading:
    async def test_large_bash_output_is_stored_whole_and_viewed(self, server, services):
        """A big output reaches the model as a head+tail view with a ref; the store has it all."""
        cmd = "for i in $(seq 1 5000); do echo line-$i; done"
        server.enqueue(Reply(tool_calls=[("bash", {"command": cmd})]), Reply(text="seen"))
        session = await services.new_session(yes=True)
        events = await collect(session.run_turn("run it"))
        done = of_type(events, ev.ToolCallFinished)[0]
        assert done.ref is not None and done.ref.line_count == 5000
        sent = tool_messages(server.requests[1])[0]["content"]
        assert "line-1\n" in sent and "line-5000" in sent and "line-2500\n" not in sent
        assert done.ref.id in sent and "read_result" in sent
        assert len(sent.encode()) < 6000
        page = await services.store.results.read(done.ref.id, 2500, 2, session_id=session.session_id)
        assert "line-2500" in page and "line-2501" in page

    async def test_model_reads_back_with_read_result(self, server, services):
        """read_result returns the lines the view left out."""
        cmd = "seq 1 3000"
        server.enqueue(Reply(tool_calls=[("bash", {"command": cmd})]), Reply(text="counted"))
        session = await services.new_session(yes=True)
        first = await collect(session.run_turn("count"))
        ref = of_type(first, ev.ToolCallFinished)[0].ref
        server.enqueue(
            Reply(tool_calls=[("read_result", {"ref_id": ref.id, "offset": 1500, "limit": 3})]),
            Reply(text="1500 is there"),
        )
        await collect(session.run_turn("what is at line 1500?"))
        content = tool_messages(server.requests[-1])[-1]["content"]
        assert "1500" in content and "1502" in content


class TestPermissions:
    async def test_denied_tool_ends_the_turn(self, server, services, workspace):
        """Without approval, bash is denied: nothing runs, the turn ends (`denied`) without
        calling the model again, and the next request tells the model it was denied."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "touch made"})]), Reply(text="ok"), Reply(text="fine")
        )
        session = await services.new_session()
        events = await collect(session.run_turn("make a file"))
        assert of_type(events, ev.ToolCallFinished)[0].is_error
        assert of_type(events, ev.TurnFinished)[0].stop_reason == "denied"
        assert len(server.requests) == 1 and not (workspace / "made").exists()
        await collect(session.run_turn("then do not"))
        assert "denied" in tool_messages(server.requests[1])[0]["content"].lower()

    async def test_denied_tool_tells_the_model_when_configured_to_carry_on(self, server, workspace, tmp_path):
        """[tools] deny_ends_turn = false: the model hears the denial in the same turn."""
        config = make_config(server, tmp_path / "carry.db", tools={"deny_ends_turn": False})
        svc = await build_services(config, workspace=workspace)
        try:
            server.enqueue(Reply(tool_calls=[("bash", {"command": "touch made"})]), Reply(text="ok"))
            session = await svc.new_session()
            events = await collect(session.run_turn("make a file"))
            assert of_type(events, ev.TurnFinished)[0].stop_reason == "done"
            assert "denied" in tool_messages(server.requests[1])[0]["content"].lower()
            assert not (workspace / "made").exists()
        finally:
            await svc.close()

    async def test_approver_is_asked_and_session_rule_remembered(self, server, services, workspace):
        """allow_session with a prefix covers later commands with that prefix only."""
        asked = []

        async def approver(request):
            asked.append(request)
            return ApprovalDecision("allow_session", prefix="echo")

        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo one"})]),
            Reply(tool_calls=[("bash", {"command": "echo two"})]),
            Reply(text="ok"),
        )
        session = await services.new_session(approver)
        events = await collect(session.run_turn("echo twice"))
        assert len(asked) == 1 and asked[0].tool == "bash"
        assert not any(f.is_error for f in of_type(events, ev.ToolCallFinished))


class TestCancellation:
    async def test_cancel_mid_stream_saves_partial_text(self, server, services):
        """Ctrl-C mid-reply: the partial text is kept and marked; the next turn works."""
        rest = threading.Event()  # the reply stalls mid-stream: the cancel lands mid-reply
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(200)), hold=rest, words_per_chunk=1))
        session = await services.new_session()
        seen = asyncio.Event()

        async def consume():
            async for event in session.run_turn("talk"):
                if isinstance(event, ev.TextDelta):
                    seen.set()

        task = asyncio.create_task(consume())
        await seen.wait()
        task.cancel()
        try:
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            rest.set()
        stored = await services.store.sessions.transcript(session.session_id)
        assert stored[1].role == "assistant" and "interrupted" in stored[1].content
        assert not session.busy
        server.enqueue(Reply(text="fine"))
        events = await collect(session.run_turn("again"))
        assert events[-1].text == "fine"

    async def test_cancel_during_tool_answers_every_call(self, server, services, workspace):
        """A cancelled bash call still gets a result, so the history stays valid for providers."""
        os.mkfifo(workspace / "ready")
        # Writing to the FIFO blocks until the test reads it: the read returns once bash runs.
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo go > ready; sleep 30"})]))
        session = await services.new_session(yes=True)

        async def consume():
            async for _ in session.run_turn("wait"):
                pass

        task = asyncio.create_task(consume())
        ready = asyncio.ensure_future(asyncio.to_thread((workspace / "ready").read_text))
        await asyncio.wait({ready, task}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():  # the turn ended without running bash: free the reader, then fail
            (workspace / "ready").write_text("")
        assert await ready == "go\n", "the turn ended before bash ran"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        history = session.history
        call_ids = [c.id for m in history for c in m.tool_calls]
        result_ids = [m.tool_call_id for m in history if m.role == "tool"]
        assert call_ids == result_ids
        server.enqueue(Reply(text="after"))
        events = await collect(session.run_turn("next"))
        assert events[-1].text == "after"


class TestLimits:
    async def test_max_steps_stops_the_turn(self, server, workspace, tmp_path):
        cfg = make_config(server, tmp_path / "s.db", agent={"max_steps": 2})
        svc = await build_services(cfg, workspace=workspace)
        try:
            server.enqueue(*[Reply(tool_calls=[("list_dir", {})]) for _ in range(3)])
            session = await svc.new_session()
            events = await collect(session.run_turn("loop forever"))
            assert events[-1].stop_reason == "max_steps"
            assert len(server.requests) == 2
        finally:
            await svc.close()

    async def test_provider_error_is_an_event_and_the_text_survives(self, server, services):
        """An auth failure ends the turn with an error event; the user's message is stored."""
        server.enqueue(Reply(status=401))
        session = await services.new_session()
        events = await collect(session.run_turn("hello?"))
        errors = of_type(events, ev.ErrorEvent)
        assert errors and errors[0].kind == "auth"
        assert events[-1].stop_reason == "error"
        stored = await services.store.sessions.transcript(session.session_id)
        assert stored[0].content == "hello?"


class TestResume:
    async def test_resume_replays_the_transcript(self, server, services):
        server.enqueue(Reply(tool_calls=[("list_dir", {})]), Reply(text="listed"))
        session = await services.new_session()
        await collect(session.run_turn("list"))
        again = await services.resume_session(session.session_id)
        assert [m.to_openai() for m in again.history] == [m.to_openai() for m in session.history]
        server.enqueue(Reply(text="continued"))
        await collect(again.run_turn("more"))
        sent = server.requests[-1]["messages"]
        assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
        assert json.dumps(sent).count("listed") == 1
