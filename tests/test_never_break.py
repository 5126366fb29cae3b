"""Sessions that never break (issue 21): cut-off tool calls, strict templates, oversize messages,
failed sends and one writer per session — each through the real loop, litellm over HTTP to the
strict local server (which answers invalid-JSON tool arguments with llama.cpp's 500 and, with
`strict_template`, two user turns in a row with Gemma's error), and a real SQLite file."""

from __future__ import annotations

import hashlib
import json

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.wire import INTERRUPTED_TOOL
from agent_tui.base.messages import Message, ToolCall, assistant, tool_result, user
from agent_tui.compose.factory import build_services
from agent_tui.store import SessionBusy
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type

CUT = '{"path": "big.txt", "content": "abc'


@pytest.fixture
def strict():
    with FakeOpenAI(window=32_000, strict_template=True) as srv:
        yield srv


@pytest.fixture
async def services(strict, workspace, tmp_path):
    svc = await build_services(make_config(strict, tmp_path / "agent.db"), workspace=workspace)
    yield svc
    await svc.close()


def rejected(server: FakeOpenAI) -> list[dict]:
    """Requests the strict server refused (it records them before validating)."""
    from testkit.openai_shapes import alternation_error, invalid_arguments_error, pairing_error

    return [
        body
        for body in server.requests
        if pairing_error(body["messages"])
        or invalid_arguments_error(body["messages"])
        or alternation_error(body["messages"])
    ]


class TestCutOffToolCall:
    async def test_a_call_cut_off_by_max_tokens_is_answered_not_run(self, strict, services, workspace):
        """finish_reason `length` mid-arguments: the write does not happen, the model is told
        why, the arguments go back as valid JSON, and the turn goes on."""
        strict.enqueue(Reply(tool_calls=[("write_file", CUT)], finish_reason="length"), Reply(text="smaller"))
        session = await services.new_session(yes=True)  # it would be allowed: it is not run
        events = await collect(session.run_turn("write it"))
        assert not (workspace / "big.txt").exists()
        finished = of_type(events, ev.ToolCallFinished)
        assert finished[0].is_error and "cut off at the output limit" in finished[0].view
        assert events[-1].text == "smaller" and not of_type(events, ev.ErrorEvent)
        sent = strict.requests[1]["messages"]
        call = next(m for m in sent if m.get("tool_calls"))["tool_calls"][0]
        assert json.loads(call["function"]["arguments"]) == {"_invalid_arguments": CUT}
        assert not rejected(strict)
        stored = await services.store.sessions.transcript(session.session_id)
        assert stored[1].tool_calls[0].arguments == CUT  # the transcript keeps what came

    async def test_stored_invalid_arguments_no_longer_break_the_next_turn(self, strict, services):
        """A session saved with a cut-off call (as 0.1 stored them): llama.cpp answers 500 to
        every request that carries it; the wire step wraps the arguments."""
        session = await services.new_session()
        call = ToolCall("call_x", "write_file", CUT)
        await services.store.sessions.append(
            session.session_id,
            [user("write"), assistant(None, (call,)), tool_result(call, "Error: bad JSON"), assistant("no")],
        )
        await session.close()
        resumed = await services.resume_session(session.session_id)
        strict.enqueue(Reply(text="fine now"))
        events = await collect(resumed.run_turn("again"))
        assert events[-1].text == "fine now" and not of_type(events, ev.ErrorEvent)
        assert not rejected(strict)


class TestStrictTemplates:
    async def test_interruption_note_then_next_message_is_one_user_turn(self, strict, services):
        """The interruption note and the next message are two user messages in the history;
        on the wire they are one turn (Gemma rejects two in a row)."""
        session = await services.new_session()
        await services.store.sessions.append(
            session.session_id, [user("first"), Message(role="user", content="[interrupted by the user]")]
        )
        await session.close()
        resumed = await services.resume_session(session.session_id)
        await resumed.add_note("The user undid the last turn.")
        strict.enqueue(Reply(text="ok"))
        events = await collect(resumed.run_turn("second"))
        assert events[-1].text == "ok" and not rejected(strict)
        roles = [m["role"] for m in strict.requests[-1]["messages"]]
        assert roles == ["system", "user"]
        assert "first" in strict.requests[-1]["messages"][1]["content"]


class TestResumeRepair:
    async def test_unanswered_calls_get_an_interrupted_result_appended(self, strict, services):
        """What a SIGKILL mid-tool leaves (a call with no result) is answered on resume, in the
        transcript (appended, never rewritten), and the next turn pairs."""
        session = await services.new_session()
        calls = (ToolCall("call_a", "bash", '{"command": "sleep 60"}'), ToolCall("call_b", "list_dir", "{}"))
        await services.store.sessions.append(
            session.session_id, [user("run it"), assistant(None, calls), tool_result(calls[1], "a.txt")]
        )
        before = await services.store.sessions.transcript(session.session_id)
        await session.close()
        resumed = await services.resume_session(session.session_id)
        after = await services.store.sessions.transcript(session.session_id)
        assert after[: len(before)] == before
        assert [(m.tool_call_id, m.content) for m in after[len(before) :]] == [("call_a", INTERRUPTED_TOOL)]
        strict.enqueue(Reply(text="resumed"))
        events = await collect(resumed.run_turn("go on"))
        assert of_type(events, ev.Notice)[0].message.startswith("1 tool call(s) had no result")
        assert events[-1].text == "resumed" and not rejected(strict)


class TestOversizeMessage:
    async def test_a_paste_larger_than_a_small_window_is_sent_as_a_view(self, tmp_path, workspace):
        """A 3.9 KB paste into a 4 096-token window (under the 4 KB byte threshold) is stored
        whole and sent as a view; the request fits."""
        with FakeOpenAI(window=4096) as small:
            svc = await build_services(
                make_config(small, tmp_path / "s.db", window=4096), workspace=workspace
            )
            try:
                session = await svc.new_session()
                paste = "\n".join(hashlib.sha1(str(i).encode()).hexdigest() for i in range(95))
                assert 3500 < len(paste.encode()) < 4096
                small.enqueue(Reply(text="read it"))
                events = await collect(session.run_turn(paste))
                assert events[-1].text == "read it" and not of_type(events, ev.ErrorEvent)
                assert any("stored" in n.message for n in of_type(events, ev.Notice))
                ref = events[-1].refs[0]
                assert ref.byte_size == len(paste.encode())
                assert session.measure().used_fraction < 1
            finally:
                await svc.close()

    async def test_compact_fits_an_old_message_that_cannot_fit(self, tmp_path, workspace):
        """A session saved with one message bigger than the window (the meter read 181%):
        /compact stores it whole, the model gets a view, and the next turn goes through."""
        with FakeOpenAI(window=5120) as small:  # a small window with room for every built-in tool
            svc = await build_services(
                make_config(small, tmp_path / "s.db", window=5120), workspace=workspace
            )
            try:
                session = await svc.new_session()
                huge = " ".join(f"word{i}" for i in range(6000))
                await svc.store.sessions.append(session.session_id, [user(huge), assistant("too long")])
                await session.close()
                resumed = await svc.resume_session(session.session_id)
                assert resumed.measure().exceeds
                events = await collect(resumed.compact())
                notes = " ".join(n.message for n in of_type(events, ev.Notice))
                assert "cannot fit the model's window" in notes and "stored whole" in notes
                assert not resumed.measure().exceeds
                small.enqueue(Reply(text="fits"))
                turn = await collect(resumed.run_turn("and now?"))
                assert turn[-1].text == "fits" and not of_type(turn, ev.ErrorEvent)
                again = await svc.store.sessions.load_for_resume(session.session_id)
                assert huge not in [m.content for m in again]  # the snapshot holds the view
            finally:
                await svc.close()


class TestFailedSend:
    async def test_a_retry_after_a_failed_send_sends_the_message_once(self, strict, services):
        """The first send fails (a 400 no retry helps); sending the same text again puts one
        user message on the wire, and the transcript keeps the failure, marked."""
        strict.enqueue(Reply(status=400))
        session = await services.new_session()
        failed = await collect(session.run_turn("hello"))
        assert of_type(failed, ev.ErrorEvent) and failed[-1].stop_reason == "error"
        assert [m.content for m in session.history] == []
        strict.enqueue(Reply(text="hi"))
        events = await collect(session.run_turn("hello"))
        assert events[-1].text == "hi"
        users = [m for m in strict.requests[-1]["messages"] if m["role"] == "user"]
        assert [m["content"].split("\n\n")[0] for m in users] == ["hello"]
        stored = await services.store.sessions.transcript(session.session_id)
        assert [m.kind for m in stored] == ["chat", "unsent", "chat", "chat"]
        assert stored[1].content.startswith("[not sent:")
        await session.close()
        resumed = await services.resume_session(session.session_id)
        assert [m.content for m in resumed.history] == ["hello", "hi"]


class TestOneWriter:
    async def test_a_second_process_gets_a_one_line_error_and_a_dead_ones_lease_is_taken(
        self, strict, services, tmp_path
    ):
        """A lease held by a live process blocks a resume; one held by a dead pid is taken over."""
        from agent_tui.store.leases import LeaseStore

        session = await services.new_session()
        other = LeaseStore(services.store.db, pid=1)  # pid 1 is alive on every system
        await services.store.leases.release(session.session_id)
        await other.acquire(session.session_id)
        with pytest.raises(SessionBusy) as busy:
            await services.resume_session(session.session_id)
        assert "open in another agent-tui (pid 1)" in str(busy.value) and "\n" not in str(busy.value)
        await other.release(session.session_id)
        dead = LeaseStore(services.store.db, pid=2**22 + 12345)  # past pid_max: never alive
        await dead.acquire(session.session_id)
        resumed = await services.resume_session(session.session_id)
        holder = await services.store.leases.holder(resumed.session_id)
        assert holder is not None and holder.pid == services.store.leases.pid
