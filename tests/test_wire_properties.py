"""Property: whatever order cancels, kills, resumes, compactions, cut-off calls and failed sends
come in, no request the session makes is one the strict server rejects (pairing, llama.cpp's
invalid-argument 500, Gemma's alternation), and the next turn always goes through.

The end-to-end property drives the real session, store and loop against the strict server; the
pure one throws many more histories at the wire step itself."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.agent import events as ev
from agent_tui.agent.wire import WireView, repairs, without_unsent
from agent_tui.base.messages import ToolCall, assistant, user
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from testkit.openai_shapes import alternation_error, invalid_arguments_error, pairing_error, shape_error
from tests.support.agent_fixtures import make_config
from tests.support.wire import damaged_histories

OPS = ("turn", "tools", "cut_off", "cancel", "kill", "resume", "compact", "failed_send", "note")


def problems(messages: list[dict]) -> list[dict]:
    body = {"model": "fake-model", "messages": messages}
    found = [
        shape_error(body),
        pairing_error(messages),
        invalid_arguments_error(messages),
        alternation_error(messages),
    ]
    return [p for p in found if p]


async def cancel_during_tool(session, prompt: str) -> None:
    """Run a turn and cancel it once its tool has started (as Esc / Ctrl-C do)."""
    started = asyncio.Event()

    async def consume() -> None:
        async for event in session.run_turn(prompt):
            if isinstance(event, ev.ToolCallStarted):
                started.set()

    task = asyncio.ensure_future(consume())
    waiter = asyncio.ensure_future(started.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    task.cancel()
    waiter.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def scenario(server: FakeOpenAI, ops: list[str], root: Path) -> None:
    workspace = root / "ws"
    workspace.mkdir()
    services = await build_services(make_config(server, root / "p.db"), workspace=workspace)
    try:
        session = await services.new_session(yes=True)
        for n, op in enumerate(ops):
            server.clear_queue()
            if op == "turn":
                server.enqueue(Reply(text=f"answer {n}"))
                [e async for e in session.run_turn(f"question {n}")]
            elif op == "tools":
                server.enqueue(Reply(tool_calls=[("list_dir", {"path": "."})] * 2), Reply(text="listed"))
                [e async for e in session.run_turn(f"list {n}")]
            elif op == "cut_off":
                server.enqueue(
                    Reply(
                        tool_calls=[("write_file", '{"path": "x", "content": "ab')], finish_reason="length"
                    ),
                    Reply(text="retrying smaller"),
                )
                [e async for e in session.run_turn(f"write {n}")]
            elif op == "cancel":
                server.enqueue(Reply(tool_calls=[("bash", {"command": "exec sleep 30"})]))
                await cancel_during_tool(session, f"slow {n}")
            elif op == "kill":
                # What a SIGKILL mid-tool leaves in the store: the call, no result, no cleanup.
                call = ToolCall(f"call_k{n}", "bash", '{"command": "sleep 60"}')
                await services.store.sessions.append(
                    session.session_id, [user(f"killed {n}"), assistant(None, (call,))]
                )
                session = await services.resume_session(session.session_id, yes=True)
            elif op == "resume":
                await session.close()
                session = await services.resume_session(session.session_id, yes=True)
            elif op == "compact":
                server.enqueue(Reply(text="<summary>what happened so far</summary>"))
                [e async for e in session.compact()]
            elif op == "failed_send":
                server.enqueue(Reply(status=400))
                [e async for e in session.run_turn(f"lost {n}")]
            elif op == "note":
                await session.add_note(f"The user undid turn {n}.")
        server.clear_queue()
        server.enqueue(Reply(text="still fine"))
        events = [e async for e in session.run_turn("are we fine?")]
        assert events[-1].text == "still fine", [e for e in events if isinstance(e, ev.ErrorEvent)]
    finally:
        await services.close()


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(st.sampled_from(OPS), min_size=1, max_size=6))
def test_no_interleaving_produces_a_history_the_strict_server_rejects(ops):
    with FakeOpenAI(window=32_000, strict_template=True) as server, tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(server, ops, Path(tmp)))
        for body in server.requests:
            if body.get("tools"):  # the loop's requests (summaries are one user message)
                assert not problems(body["messages"]), (ops, problems(body["messages"]))


# -- the wire step alone, over many damaged histories ------------------------------------------


@given(history=damaged_histories())
def test_the_wire_step_makes_any_history_acceptable(history):
    view = WireView()
    resumed = without_unsent(history)
    resumed += repairs(resumed)
    for candidate in (history, resumed):
        wire = [{"role": "system", "content": "s"}, *(m.to_openai() for m in view(candidate))]
        if len(wire) == 1:
            wire.append({"role": "user", "content": "next"})
        assert not problems(wire), (candidate, problems(wire))
        for m in wire:  # no surrogate survives (encoding would raise)
            (m.get("content") or "").encode("utf-8")
            for call in m.get("tool_calls") or ():
                call["function"]["arguments"].encode("utf-8")
        again = view(candidate)
        assert all(a is b for a, b in zip(again, view(candidate), strict=True))  # stable identity
