"""The assembler's wire dicts are shared by every request and reused by identity, so they are
read-only; every copy of one is a plain dict that can be changed (issue 19)."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from agent_tui.agent.prompting import PromptAssembler
from agent_tui.base.messages import assistant, user
from agent_tui.base.wire_dict import WireDict
from agent_tui.tools.registry import ToolRegistry


def test_every_in_place_change_is_refused():
    message = WireDict(role="user", content="hi")
    changes = (
        lambda m: m.__setitem__("content", "x"),
        lambda m: m.__delitem__("content"),
        lambda m: m.update(content="x"),
        lambda m: m.setdefault("name", "x"),
        lambda m: m.pop("content"),
        lambda m: m.popitem(),
        lambda m: m.clear(),
    )
    for change in changes:
        with pytest.raises(TypeError, match="read-only"):
            change(message)
    with pytest.raises(TypeError, match="read-only"):
        message |= {"content": "x"}
    assert message == {"role": "user", "content": "hi"}


def test_reading_comparing_and_serialising_are_a_dicts():
    message = WireDict(role="assistant", content="ok", tool_calls=[{"id": "c1"}])
    assert message == {"role": "assistant", "content": "ok", "tool_calls": [{"id": "c1"}]}
    assert json.loads(json.dumps(message)) == message
    assert {**message, "content": "edited"}["content"] == "edited"


def test_copies_are_plain_changeable_dicts():
    message = WireDict(role="user", content=[{"type": "text", "text": "hi"}])
    for made in (
        dict(message),
        copy.copy(message),
        copy.deepcopy(message),
        pickle.loads(pickle.dumps(message)),
    ):
        assert type(made) is dict and made == message
        made["content"] = "changed"
    deep = copy.deepcopy(message)
    deep["content"][0]["text"] = "changed"
    assert message["content"][0]["text"] == "hi"


def test_the_assembler_hands_out_the_same_read_only_dicts_and_copies_for_the_note(tmp_path):
    assembler = PromptAssembler(tmp_path, ToolRegistry())
    sections = assembler.sections(None)
    history = [user("q0"), assistant("a0"), user("q1")]
    first = assembler.request(history, sections, []).messages
    history += [assistant("a1"), user("q2")]
    second = assembler.request(history, sections, []).messages
    assert all(a is b for a, b in zip(first[1:3], second[1:3], strict=True))
    assert all(type(m) is WireDict for m in second[1:-1])
    with pytest.raises(TypeError):
        second[1]["content"] = "changed"
