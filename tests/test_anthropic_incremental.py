"""Anthropic's request reuses the JSON of the turns the last request already had (issue 19).

Every request a session sends to Anthropic repeats the last one plus a few messages; the
translation to Anthropic's turns (merging roles, tool results first, marks on their blocks) is
redone only from the first message that is not the very same read-only wire dict, and from the
turn before it. These tests throw growth, moving cache marks, replaced and dropped messages,
system changes, plain dicts changed in place and a second request in flight at it, and compare
every body with a fresh translation of the same messages.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.base.messages import assistant, user
from agent_tui.base.wire_dict import WireDict
from agent_tui.llm import anthropic_request, cache
from testkit.fake_anthropic import Reply
from tests.support.agent_fixtures import collect
from tests.support.anthropic_fixtures import thinking_services

MARK = {"type": "ephemeral"}


def body(messages: list[dict], memo: anthropic_request.EncodedTurns | None = None, plan=None) -> bytes:
    chunks = anthropic_request.encode(
        "claude", messages, [{"function": {"name": "t"}}], 100, stream=True, extra={}, memo=memo, plan=plan
    )
    return b"".join(chunks)


def fresh(messages: list[dict]) -> bytes:
    return body(messages)


texts = st.sampled_from(["", "hi", "a longer text", "ünïcode"])


@st.composite
def wire_messages(draw: st.DrawFn) -> WireDict:
    kinds = ("user", "user_parts", "assistant", "calls", "result", "system", "thinking", "searched")
    kind = draw(st.sampled_from(kinds))
    if kind == "user":
        return WireDict(role="user", content=draw(texts))
    if kind == "user_parts":
        parts = [
            {"type": "text", "text": draw(texts)},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}},
        ]
        return WireDict(role="user", content=parts[: draw(st.integers(1, 2))])
    if kind == "assistant":
        return WireDict(role="assistant", content=draw(st.sampled_from([None, "", "ok"])))
    if kind == "calls":
        calls = [
            {
                "id": f"c{n}",
                "type": "function",
                "function": {
                    "name": "bash",
                    "arguments": draw(st.sampled_from(['{"a": 1}', "not json", ""])),
                },
            }
            for n in range(draw(st.integers(1, 2)))
        ]
        return WireDict(
            role="assistant", content=draw(st.sampled_from([None, "let me look"])), tool_calls=calls
        )
    if kind == "result":
        return WireDict(role="tool", tool_call_id=draw(st.sampled_from(["c0", "c1"])), content=draw(texts))
    if kind == "thinking":
        blocks = [{"type": "thinking", "thinking": "plan", "signature": "sig"}]
        return WireDict(role="assistant", content="done", thinking_blocks=blocks)
    if kind == "searched":  # the provider's own search, sent back before the text
        use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}
        found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
        return WireDict(role="assistant", content=draw(texts), server_blocks=[use, found])
    return WireDict(role="system", content=draw(texts))


EDITS = (
    "grow",
    "mark_newest",
    "replace",
    "drop_range",
    "new_system",
    "equal_system",
    "plain_in_place",
    "repeat",
)


@settings(max_examples=300, deadline=None)
@given(
    start=st.lists(wire_messages(), max_size=10),
    edits=st.lists(
        st.tuples(st.sampled_from(EDITS), st.lists(wire_messages(), max_size=4), st.integers(0, 30)),
        max_size=8,
    ),
)
def test_every_request_equals_a_fresh_translation(start, edits):
    memo = anthropic_request.EncodedTurns()
    system = {"role": "system", "content": [{"type": "text", "text": "rules", "cache_control": MARK}]}
    conversation = list(start)
    plain = {"role": "user", "content": "plain"}

    def request() -> list[dict]:
        return [dict(system), *conversation]

    messages = request()
    assert body(messages, memo) == fresh(messages)
    for edit, more, at in edits:
        if edit == "grow":
            conversation += more
        elif edit == "mark_newest" and conversation:  # as llm/cache.py marks the newest message
            conversation[-1] = cache.mark(conversation[-1])
        elif edit == "replace" and conversation:
            conversation[at % len(conversation)] = more[0] if more else WireDict(role="user", content="new")
        elif edit == "drop_range":
            del conversation[at % 5 : at % 5 + 3]
        elif edit == "new_system":
            system = {"role": "system", "content": f"rules {at}"}
        elif edit == "equal_system":
            system = json.loads(json.dumps(system))
        elif edit == "plain_in_place":
            conversation += [plain, WireDict(role="assistant", content="closes the plain turn")]
            body(request(), memo)
            plain["content"] = f"changed {at}"  # nobody should; it must not go out stale
        messages = request()
        assert body(messages, memo) == fresh(messages)
        assert json.loads(body(messages, memo))["messages"][0]["role"] == "user"


def test_only_the_new_turns_are_translated():
    memo = anthropic_request.EncodedTurns()
    history = [WireDict(role="user" if i % 2 == 0 else "assistant", content=f"m{i}") for i in range(3_000)]
    messages = [{"role": "system", "content": "rules"}, *history]
    body(messages, memo)
    grown = [{"role": "system", "content": "rules"}, *history, WireDict(role="assistant", content="new")]
    plan = memo.plan(grown)
    # the last old turn is redone too: the next message could have merged into it
    assert memo.unreused(grown, plan) == 2
    assert body(grown, memo, plan) == fresh(grown)


def test_a_plan_made_before_another_request_still_gives_the_right_body():
    memo = anthropic_request.EncodedTurns()
    first = [WireDict(role="user" if i % 2 == 0 else "assistant", content=f"q{i}") for i in range(30)]
    body(first, memo)
    second = [*first, WireDict(role="user", content="more")]
    plan = memo.plan(second)
    body([{"role": "user", "content": "summarise this"}], memo)  # replaces the state meanwhile
    assert memo.plan(second)[1] == 0 and plan[1] > 0
    assert body(second, memo, plan) == fresh(second)


def test_extra_that_sets_the_messages_still_wins():
    memo = anthropic_request.EncodedTurns()
    messages = [WireDict(role="user", content="hi")]
    chunks = anthropic_request.encode(
        "claude", messages, None, 10, stream=True, extra={"messages": ["override"]}, memo=memo
    )
    assert json.loads(b"".join(chunks))["messages"] == ["override"]


async def test_every_request_a_session_sends_equals_a_fresh_translation(
    anthropic, tmp_path, workspace, monkeypatch
):
    """A real session on the local Anthropic server with thinking and cache marks: tool-use turns
    whose thinking blocks go back, marks that move every step, a note, a compaction. Each body
    the provider sends is what a fresh translation of its messages gives."""
    original = anthropic_request.encode
    compared: list[int] = []

    def checked(*args, **kwargs):
        chunks = original(*args, **kwargs)
        alone = original(*args, **{**kwargs, "memo": None, "plan": None})
        assert b"".join(chunks) == b"".join(alone)
        plan = kwargs.get("plan")
        compared.append(plan[1] if plan else 0)
        return chunks

    monkeypatch.setattr(anthropic_request, "encode", checked)
    (workspace / "a.txt").write_text("alpha\n")
    services = await thinking_services(anthropic, tmp_path / "t.db", workspace)
    try:
        session = await services.new_session(yes=True)
        for i in range(40):
            session.history += [user(f"old question {i}"), assistant(f"old answer {i}")]
        anthropic.enqueue(
            Reply(reasoning="read it", tool_calls=[("read_file", {"path": "a.txt"})]),
            Reply(reasoning="and list", tool_calls=[("list_dir", {"path": "."})]),
            Reply(text="It says alpha."),
            Reply(reasoning="short", text="Yes."),
        )
        await collect(session.run_turn("what is in a.txt?"))
        await session.add_note("The user edited a.txt.")
        await collect(session.run_turn("sure?"))
        anthropic.enqueue(Reply(text="<summary>questions were asked and answered</summary>"))
        await collect(session.compact())
        anthropic.enqueue(Reply(text="after the summary"))
        await collect(session.run_turn("and now?"))
    finally:
        await services.close()
    # every body encoded was sent: the messages and the pre-flight count of the first request
    assert len(compared) == len(anthropic.requests) + len(anthropic.counted) and len(anthropic.requests) >= 6
    assert sum(1 for reused in compared if reused >= 40) >= 3  # the steps after the first reused turns
