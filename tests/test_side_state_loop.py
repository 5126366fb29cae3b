"""The task list and the pins live beside the conversation (issue 44 items 1 and 4): through a
window small enough that compaction runs at least three times, on both wires, the last request
holds them exactly, and so does the first request after the session is resumed (`--continue`)."""

from __future__ import annotations

import json

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, of_type
from tests.support.wires import KEY, WIRES, answers_a_tool
from tests.support.wires import wire_config as config
from tests.support.wires import wire_server as server

TODOS = [
    {"content": "Read the parser", "status": "completed", "activeForm": "Reading the parser"},
    {"content": "Fix the off-by-one", "status": "in_progress", "activeForm": "Fixing the off-by-one"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]
TODO_TEXT = "[x] Read the parser\n[~] Fixing the off-by-one\n[ ] Run the tests"
PIN = "Never touch the migrations folder; the release is tagged v2.3.1-rc7."


def is_summary(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


class Script:
    """A model that writes its task list and pins a fact in its first steps, then runs one large
    listing per user message; it answers summary requests with the tags."""

    def __init__(self) -> None:
        self.calls = 0
        self.turn_step = 0

    def __call__(self, body: dict) -> Reply:
        if is_summary(body):
            return Reply(text="<retain>parser work</retain><summary>Listings were run.</summary>")
        self.calls += 1
        if self.calls == 1:
            return Reply(tool_calls=[("todo", {"todos": TODOS})])
        if self.calls == 2:
            return Reply(tool_calls=[("pin", {"text": PIN})])
        if answers_a_tool(body):
            return Reply(text="Listed.")
        return Reply(tool_calls=[("bash", {"command": "seq 1 900 | sed 's/^/listing row /'"})])


def request_text(body: dict) -> str:
    return json.dumps(body)


@pytest.mark.parametrize("wire", WIRES)
async def test_todos_and_pins_survive_compactions_and_resume(wire, monkeypatch, tmp_path, workspace):
    """Three compactions or more: the pin's exact text and the task list's exact state are in
    the last request, and in the first request after the session is resumed."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    script = Script()
    db = tmp_path / "side.db"
    with server(wire, script) as srv:
        services = await build_services(config(wire, srv.base_url, db), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            changed, compactions = [], 0
            for n in range(24):
                events = await collect(session.run_turn(f"please list rows, round {n}"))
                assert not of_type(events, ev.ErrorEvent), of_type(events, ev.ErrorEvent)
                changed += of_type(events, ev.SideStateChanged)
                compactions += len([e for e in of_type(events, ev.CompactionFinished) if e.result.applied])
            assert compactions >= 3, compactions
            assert [t.to_json() for t in changed[-1].todos] == TODOS
            assert [p.text for p in changed[-1].pins] == [PIN]
            last = request_text(srv.requests[-1])
            assert json.dumps(PIN)[1:-1] in last
            assert json.dumps(TODO_TEXT)[1:-1] in last
            sid = session.session_id
            await services.store.leases.release_all()
        finally:
            await services.close()
        services = await build_services(config(wire, srv.base_url, db), workspace=workspace)
        try:
            resumed = await services.resume_session(sid, yes=True)
            assert [t.to_json() for t in resumed.side.state.todos] == TODOS
            await collect(resumed.run_turn("please list rows once more"))
            first = request_text([b for b in srv.requests if not is_summary(b)][-2])
            assert json.dumps(PIN)[1:-1] in first
            assert json.dumps(TODO_TEXT)[1:-1] in first
        finally:
            await services.close()
