"""Compaction inside the real loop: thresholds, the hard block, the tool, resume from snapshots,
all against the strict server (which rejects overflows and broken tool pairing)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type

REF = re.compile(r"r_[0-9a-f]{10}")


def is_summary_request(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


def agent_responder(body: dict) -> Reply:
    """A model that runs one big command per user message, then answers; and summarises when
    asked (with the tags, listing whatever refs it saw)."""
    if is_summary_request(body):
        refs = sorted(set(REF.findall(json.dumps(body))))
        return Reply(
            text=f"<retain>refs: {' '.join(refs[:5])}</retain>"
            "<summary>The user asked for many listings; each was run.</summary>"
        )
    last = body["messages"][-1]
    if last["role"] == "user":
        turn = sum(1 for m in body["messages"] if m["role"] == "user")
        cmd = f"seq 1 1500 | sed 's/^/turn{turn:03d} row /'"
        return Reply(tool_calls=[("bash", {"command": cmd})])
    return Reply(text="Listed.")


def pairing_ok(messages: list[dict]) -> bool:
    open_calls: list[str] = []
    for m in messages:
        if m["role"] == "tool":
            if not open_calls or m["tool_call_id"] != open_calls.pop(0):
                return False
        elif open_calls:
            return False
        if m["role"] == "assistant":
            open_calls = [c["id"] for c in m.get("tool_calls") or []]
    return not open_calls


SMALL = 6656
"""A small window whose conversation keeps the room these thresholds were tuned for: the
built-ins are described briefly here (context/deferral.py TOOL_SHARE), ~1 300 tokens in all."""


@pytest.fixture
def small_server():
    with FakeOpenAI(window=SMALL, responder=agent_responder) as srv:
        yield srv


class TestLongSession:
    async def test_sixty_turns_through_an_8k_window(self, small_server, workspace, tmp_path):
        """Tool outputs far past the window: no overflow, no broken pairing, and the first
        turn's output is still readable by its ref, which the retain block lists or counts among
        the older outputs recall finds."""
        cfg = make_config(small_server, tmp_path / "long.db", window=8192)
        services = await build_services(cfg, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            compactions, first_ref, output_bytes = 0, None, 0
            for turn in range(62):
                events = await collect(session.run_turn(f"list rows, round {turn}"))
                assert not of_type(events, ev.ErrorEvent), of_type(events, ev.ErrorEvent)
                assert events[-1].stop_reason == "done"
                compactions += len(of_type(events, ev.CompactionFinished))
                output_bytes += sum(f.ref.byte_size for f in of_type(events, ev.ToolCallFinished))
                if first_ref is None:
                    first_ref = of_type(events, ev.ToolCallFinished)[0].ref
            assert output_bytes > 40 * 8192 * 4, "outputs total far more than the window"
            assert compactions >= 5
            for body in small_server.requests:
                assert small_server.prompt_tokens_of(body) + body.get("max_tokens", 0) <= 8192
                assert pairing_ok(body["messages"][1:])
            history_text = json.dumps([m.to_openai() for m in session.history])
            assert first_ref.id in history_text or "older outputs not listed here" in history_text
            small_server.enqueue(
                Reply(tool_calls=[("read_result", {"ref_id": first_ref.id, "offset": 700, "limit": 2})]),
                Reply(text="found it"),
            )
            events = await collect(session.run_turn("what was row 700 of the first listing?"))
            read = small_server.requests[-1]["messages"][-1]
            assert read["role"] == "tool" and "turn001 row 700" in read["content"]
        finally:
            await services.close()


def filler(n_words: int) -> str:
    return " ".join(f"word{i % 97}" for i in range(n_words))


@pytest.fixture
async def small_services(small_server, workspace, tmp_path):
    services = await build_services(
        make_config(small_server, tmp_path / "c.db", window=SMALL), workspace=workspace
    )
    yield services
    await services.close()


class TestThresholds:
    async def test_status_note_from_eighty_percent(self, small_server, small_services):
        """At ≥ 80% the system prompt tells the model it can call compact_context."""
        session = await small_services.new_session(yes=True)
        small_server.enqueue(Reply(text="ok"))
        await collect(session.run_turn(filler(1000), as_is=True))
        assert "compact_context to free space" not in json.dumps(small_server.requests[0])
        small_server.enqueue(Reply(text="ok"))
        await collect(session.run_turn(filler(700), as_is=True))
        sent = small_server.requests[-1]["messages"]
        note = r"\[Context: \d+% used\. You can call compact_context"
        assert re.search(note, sent[-1]["content"]), "the note rides on the newest message"
        assert not re.search(note, sent[0]["content"]), "the system prompt prefix stays stable"
        first_system = small_server.requests[0]["messages"][0]["content"]
        assert sent[0]["content"] == first_system

    async def test_hard_block_compacts_then_sends_the_message(self, small_server, small_services):
        """Past 98% the turn starts blocked, compacts, and the user's message still goes out."""
        session = await small_services.new_session(yes=True)
        small_server.enqueue(Reply(text="ok"), Reply(text="ok"))
        # Each message fits the window alone (one that cannot is sent as a view instead), together
        # they pass 80% with auto-compaction off, and the third pushes past the hard block.
        await collect(session.run_turn(filler(1200), as_is=True))
        session.config = replace(session.config, compaction=replace(session.config.compaction, auto=False))
        await collect(session.run_turn(filler(600), as_is=True))
        assert session.measure().used_fraction > 0.8
        events = await collect(session.run_turn("the message that must arrive " + filler(900), as_is=True))
        assert of_type(events, ev.Blocked)
        assert of_type(events, ev.CompactionFinished)[0].result.applied
        assert "the message that must arrive" in json.dumps(small_server.requests[-1]["messages"])

    async def test_context_length_error_compacts_and_retries_once(self, workspace, tmp_path):
        """When the provider's window is smaller than configured, its 400 makes the loop adopt
        the provider's window, compact and retry once, and the turn succeeds."""
        # 6 000 before wave 3's ~420 more tokens of tool descriptions (see SMALL).
        with FakeOpenAI(window=6500, responder=agent_responder) as srv:
            cfg = make_config(srv, tmp_path / "o.db", window=12000, model={"max_output_tokens": 500})
            services = await build_services(cfg, workspace=workspace)
            try:
                session = await services.new_session(yes=True)
                srv.enqueue(Reply(text="one"), Reply(text="two"))
                await collect(session.run_turn(filler(600), as_is=True))
                await collect(session.run_turn(filler(600), as_is=True))
                events = await collect(session.run_turn("third " + filler(600), as_is=True))
                assert of_type(events, ev.CompactionStarted)[0].reason == "context_length"
                assert any(
                    "window is 6 500 tokens, not 12 000" in n.message for n in of_type(events, ev.Notice)
                )
                assert events[-1].stop_reason == "done"
                assert session.limits.context_window == 6500
            finally:
                await services.close()


class TestForcedCompaction:
    async def test_compact_context_tool_keeps_its_own_call_and_result(self, small_server, small_services):
        """The model's compact_context call and its result survive the compaction it causes."""
        session = await small_services.new_session(yes=True)
        for _ in range(3):
            await collect(session.run_turn("list please"))
        small_server.enqueue(Reply(tool_calls=[("compact_context", {})]), Reply(text="lighter"))
        events = await collect(session.run_turn("free some room"))
        result = of_type(events, ev.CompactionFinished)[0].result
        assert result.applied and result.tokens_after < result.tokens_before
        sent = small_server.requests[-1]["messages"]
        call = [m for m in sent if m["role"] == "assistant" and m.get("tool_calls")][-1]
        assert call["tool_calls"][0]["function"]["name"] == "compact_context"
        answer = [m for m in sent if m.get("tool_call_id") == call["tool_calls"][0]["id"]]
        assert answer and "Compacted" in answer[0]["content"]
        assert pairing_ok(sent[1:])

    async def test_trailing_tool_call_breaks_a_strict_provider_but_not_our_summary(
        self, small_server, small_services
    ):
        """Sending the history as is while a tool call is open is rejected; the summariser
        request made at that very moment is accepted."""
        from agent_tui.llm.errors import LLMError
        from agent_tui.llm.provider import Provider

        session = await small_services.new_session(yes=True)
        await collect(session.run_turn("list please"))
        small_server.enqueue(Reply(tool_calls=[("compact_context", {})]), Reply(text="ok"))
        await collect(session.run_turn("compact now"))
        open_call = [m.to_openai() for m in session.history if m.role != "tool"][
            :-1
        ]  # ends with the assistant's compact_context call
        assert open_call[-1].get("tool_calls")
        provider = Provider("openai/fake-model", api_base=small_server.base_url)
        with pytest.raises(LLMError) as err:
            await provider.complete([{"role": "system", "content": "x"}, *open_call])
        assert err.value.kind == "bad_request"
        summaries = [b for b in small_server.requests if is_summary_request(b)]
        assert summaries, "the compaction asked the summariser"

    async def test_compact_when_already_full(self, small_server, small_services):
        """/compact at 100%: cheap strategies first, then the summary; the history shrinks."""
        session = await small_services.new_session(yes=True)
        small_server.enqueue(Reply(text="ok"))
        await collect(session.run_turn(filler(1000), as_is=True))
        from agent_tui.base.messages import assistant, user

        session.history += [user(filler(900)), assistant("noted")] * 2
        assert session.measure().used_fraction >= 1.0
        events = await collect(session.compact("keep the word list"))
        result = of_type(events, ev.CompactionFinished)[0].result
        assert result.applied and session.measure().used_fraction < 0.7
        summary_request = [b for b in small_server.requests if is_summary_request(b)][-1]
        assert "keep the word list" in json.dumps(summary_request)

    async def test_failing_summariser_falls_back_and_the_turn_goes_on(self, workspace, tmp_path):
        def failing(body: dict) -> Reply:
            if is_summary_request(body):
                return Reply(status=500)
            return agent_responder(body)

        with FakeOpenAI(window=8192, responder=failing) as srv:
            services = await build_services(
                make_config(srv, tmp_path / "f.db", window=8192), workspace=workspace
            )
            try:
                session = await services.new_session(yes=True)
                for turn in range(8):
                    events = await collect(session.run_turn(f"round {turn}"))
                    assert events[-1].stop_reason == "done"
                events = await collect(session.compact())
                result = of_type(events, ev.CompactionFinished)[0].result
                assert result.applied and "summarization" not in result.strategies
            finally:
                await services.close()


class TestResume:
    async def test_resume_starts_from_the_snapshot(self, small_server, small_services):
        """After a compaction, resume = snapshot + later messages; the transcript stays whole."""
        session = await small_services.new_session(yes=True)
        for _ in range(6):
            await collect(session.run_turn("list please"))
        await collect(session.compact())
        small_server.enqueue(Reply(text="after compaction"))
        await collect(session.run_turn("one more"))
        resumed = await small_services.resume_session(session.session_id)
        assert [m.to_openai() for m in resumed.history] == [m.to_openai() for m in session.history]
        transcript = await small_services.store.sessions.transcript(session.session_id)
        assert len(transcript) > len(resumed.history)
        assert not any(m.kind == "summary" for m in transcript)


class TestPagedReadersFitTheWindow:
    async def test_read_file_of_a_big_log_fits_a_small_window(self, small_server, small_services, workspace):
        """One read_file of a 35 KB log in an 8k window returns a page that fits (and says how
        to read on) instead of overflowing the window."""
        (workspace / "app.log").write_text(
            "".join(f"{i:05d} request handled in 12 ms\n" for i in range(1200))
        )
        small_server.enqueue(Reply(tool_calls=[("read_file", {"path": "app.log"})]), Reply(text="read it"))
        session = await small_services.new_session(yes=True)
        events = await collect(session.run_turn("read app.log"))
        assert not of_type(events, ev.ErrorEvent)
        page = small_server.requests[-1]["messages"][-1]["content"]
        assert "00000" in page and "offset=" in page
        assert len(page.encode()) < 12_000
        assert session.measure().used_fraction < 1.0
