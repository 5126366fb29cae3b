"""The per-step caches over a growing history give exactly what a fresh build gives (issue 19).

Before every model call the session maps its history to the wire (WireView), asks what needs
repairing (Scan), turns the messages into wire dicts (PromptAssembler) and the request into JSON
(EncodedMessages). Each reuses what it built for the previous call when the history only grew.
These tests throw growth, compaction-style rewrites, repairs, failed sends and in-place edits at
them and compare every result with a fresh build of the same input; the last test does the same
with the requests a real session sends to the local server.
"""

from __future__ import annotations

import json
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.agent.prompting import PromptAssembler
from agent_tui.agent.wire import (
    MISSING_RESULT,
    Scan,
    WireView,
    repairs,
    unanswered_calls,
    unsent_marker,
    without_unsent,
)
from agent_tui.base.messages import Message, ToolCall, assistant, tool_result, user
from agent_tui.base.wire_dict import WireDict
from agent_tui.compose.factory import build_services
from agent_tui.llm import http_openai
from agent_tui.tools.registry import ToolRegistry
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.wire import damaged_histories


def sent(messages: list[Message]) -> list[dict]:
    return [m.to_openai() for m in messages]


def fresh_wire(history: list[Message]) -> list[dict]:
    return sent(WireView()(history))


def check(view: WireView, scan: Scan, history: list[Message]) -> list[Message]:
    out = view(history)
    assert sent(out) == fresh_wire(history)
    assert sent(scan.repairs(history)) == sent(repairs(history))
    assert scan.has_unsent(history) == (len(without_unsent(history)) != len(history))
    return out


# -- WireView and Scan ------------------------------------------------------------------------

EDITS = ("grow", "grow_in_place", "drop_range", "repair", "unsend", "copy_one", "repeat")


@settings(max_examples=300, deadline=None)
@given(
    start=damaged_histories(),
    edits=st.lists(st.tuples(st.sampled_from(EDITS), damaged_histories(), st.integers(0, 30)), max_size=8),
)
def test_every_edit_of_the_history_gives_what_a_fresh_build_gives(start, edits):
    view, scan = WireView(), Scan()
    history = list(start)
    check(view, scan, history)
    for edit, more, at in edits:
        before = view(history)
        grown_only = False
        if edit == "grow":  # a new list holding the same objects, as adopt_history makes
            grown_only = True
            answers = {m.tool_call_id for m in more if m.role == "tool"}
            answered_late = answers & {c.id for c in unanswered_calls(history)}
            history = [*history, *more]
        elif edit == "grow_in_place":  # the session's own appends
            answered_late = {m.tool_call_id for m in more if m.role == "tool"} & {
                c.id for c in unanswered_calls(history)
            }
            grown_only = True
            history.extend(more)
        elif edit == "drop_range":  # compaction, undo, a trimmed output
            cut = at % (len(history) + 1)
            history = history[:cut] + history[cut + 1 + at // 3 :]
        elif edit == "repair":
            history += repairs(history)
        elif edit == "unsend":
            history = without_unsent(history)
        elif edit == "copy_one" and history:  # an equal message, but another object
            i = at % len(history)
            history[i] = replace(history[i])
        out = check(view, scan, history)
        if grown_only and not answered_late and before:
            # What was sent before is sent again as the very same objects (the newest may
            # merge with a follow-up), so every cache keyed on them keeps working.
            assert all(a is b for a, b in zip(out, before[:-1], strict=False))
        again = view(history)
        assert all(a is b for a, b in zip(again, out, strict=True))


def test_a_call_shown_unanswered_gets_its_result_once_the_result_arrives():
    call = ToolCall("c1", "bash", '{"command": "ls"}')
    history = [user("go"), assistant(None, (call,))]
    view = WireView()
    assert view(history)[-1].content == MISSING_RESULT
    history.append(tool_result(call, "[interrupted: agent-tui stopped before this tool finished]"))
    out = view(history)
    assert out[-1].content.startswith("[interrupted")
    assert sent(out) == fresh_wire(history)


def test_a_note_then_a_message_merge_into_one_turn_after_a_reuse():
    history = [
        user("first"),
        assistant("ok"),
        Message(role="user", content="The user undid turn 1.", kind="note"),
    ]
    view = WireView()
    view(history)
    history.append(user("second"))
    out = view(history)
    assert [m.role for m in out] == ["user", "assistant", "user"]
    assert out[-1].content == "The user undid turn 1.\n\nsecond"
    assert sent(out) == fresh_wire(history)


def test_a_compaction_rewrite_is_walked_afresh():
    call = ToolCall("c1", "read_file", '{"path": "a"}')
    old = [user("a"), assistant(None, (call,)), tool_result(call, "text"), assistant("done"), user("b")]
    view, scan = WireView(), Scan()
    check(view, scan, old)
    summary = user("<summary>a was read</summary>")
    compacted = [summary, *old[3:]]
    assert sent(view(compacted)) == fresh_wire(compacted)
    unsent = [*compacted, unsent_marker(compacted[-1], "refused")]
    check(view, scan, unsent)
    assert scan.has_unsent(unsent) and not scan.has_unsent(without_unsent(unsent))


# -- PromptAssembler ------------------------------------------------------------------------


def test_the_request_wire_dicts_follow_every_rewrite(tmp_path):
    assembler = PromptAssembler(tmp_path, ToolRegistry())
    sections = assembler.sections(None)
    history = [user("q0"), assistant("a0"), user("q1")]

    def check_request() -> None:
        messages = assembler.request(history, sections, []).messages
        assert messages[1:] == sent(history)

    check_request()
    history += [assistant("a1"), user("q2")]
    check_request()
    history[-1] = user("q2, merged with a note")  # the newest replaced, as a merge does
    check_request()
    history = [user("<summary>…</summary>"), *history[3:]]  # compaction
    check_request()
    history.insert(1, assistant("restored"))  # a change in the middle
    check_request()


# -- EncodedMessages ------------------------------------------------------------------------


def body(messages: list[dict], memo: http_openai.EncodedMessages | None, plan=None) -> bytes:
    return b"".join(
        http_openai.encode(
            "m", messages, None, 100, stream=True, provider=None, extra={}, memo=memo, plan=plan
        )
    )


def test_request_json_equals_a_fresh_serialisation_after_any_change():
    memo = http_openai.EncodedMessages()
    system = {"role": "system", "content": "rules"}
    conversation = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(40)]

    def same(messages: list[dict]) -> None:
        assert body(messages, memo) == body(messages, None)
        assert json.loads(body(messages, None))["messages"] == messages

    same([system, *conversation])
    same([dict(system), *conversation, {"role": "user", "content": "new"}])  # a new, equal system dict
    same([{"role": "system", "content": "rules, edited"}, *conversation])  # the system prompt changed
    same([system, *conversation[:10], *conversation[30:]])  # compaction dropped the middle
    same([system])


def test_a_plan_made_before_another_request_still_gives_the_right_body():
    """Two requests in flight on one provider (a summary during a step): a plan carries the state
    it was made against, so whichever finishes first cannot make the other send wrong JSON."""
    memo = http_openai.EncodedMessages()
    first = [WireDict(role="user", content=f"q{i}") for i in range(30)]
    body(first, memo)
    second = [*first, WireDict(role="assistant", content="a")]
    plan = memo.plan(second)
    other = [{"role": "user", "content": "summarise this"}]
    body(other, memo)  # replaces the state while the first plan waits
    assert memo.reusable(second) == 0 and plan[1] == len(first)
    assert body(second, memo, plan) == body(second, None)


# -- the real loop ------------------------------------------------------------------------


async def test_every_request_a_session_sends_equals_a_fresh_build(tmp_path):
    """Turns, a note merged into the next message, a compaction and a repaired kill: the server
    receives, each time, exactly the fresh wire form of the history the request was built from."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeOpenAI(window=1_000_000, strict_template=True) as server:
        services = await build_services(
            make_config(server, tmp_path / "s.db", window=1_000_000), workspace=workspace
        )
        try:
            session = await services.new_session(yes=True)
            for i in range(60):
                call = ToolCall(f"old{i}", "read_file", '{"path": "a"}')
                session.history += [
                    user(f"q{i}"),
                    assistant(None, (call,)),
                    tool_result(call, "x"),
                    assistant("ok"),
                ]

            async def turn(prompt: str) -> None:
                server.clear_queue()
                server.enqueue(Reply(text=f"answer to {prompt}"))
                await collect(session.run_turn(prompt))
                asked = server.requests[-1]["messages"][1:]
                assert asked == fresh_wire(session.history[:-1])  # all but the reply to it

            await turn("one")
            await turn("two")
            await session.add_note("The user undid turn 2.")
            await turn("three")
            server.clear_queue()
            server.enqueue(Reply(text="<summary>questions were asked and answered</summary>"))
            await collect(session.compact())
            await turn("four")
            call = ToolCall("killed", "bash", '{"command": "sleep 60"}')
            session.history += [user("five"), assistant(None, (call,))]  # what a kill mid-tool leaves
            await turn("six")
            assert any(m.tool_call_id == "killed" for m in session.history)
        finally:
            await services.close()


def test_a_replacement_follows_a_change_of_reasoning_under_the_same_id():
    """A memoised replacement (here the empty-content one) carried the reasoning of the first
    message it was made for: a copy under the same id without its thinking blocks still sent them."""
    from dataclasses import replace

    from agent_tui.agent.wire import WireView
    from agent_tui.base.messages import Message
    from agent_tui.base.reasoning import Reasoning, ThinkingBlock

    thought = Reasoning("plan", (ThinkingBlock("thinking", "plan", "sig"),))
    first = Message(role="assistant", content=None, reasoning=thought)
    view = WireView()
    ask = Message(role="user", content="go")
    assert view([ask, first])[-1].reasoning == thought
    stripped = replace(first, reasoning=None)
    assert view([ask, stripped])[-1].reasoning is None
