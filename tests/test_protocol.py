"""The typed protocol below every front end: a closed union of operations in (core/ops.py), the
closed union of events out (agent/events.py + core/protocol_events.py), one handler per
operation (core/driver.py), and the JSON Schema of both unions generated into docs/protocol/.
A session driven in process by operations against a real local model server."""

from __future__ import annotations

import asyncio
import json
import typing
from pathlib import Path

import jsonschema
import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.driver import HANDLERS, SessionDriver
from agent_tui.core.protocol_schema import events_schema, operations_schema
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config

ROOT = Path(__file__).resolve().parent.parent

SAMPLES: list[ops.Op] = [
    ops.Send("hi"),
    ops.Send("what is this?", (ops.Picture("shot.png", "image/png", "iVBORw0KGgo="),)),
    ops.Compact("keep the plan"),
    ops.SetModel("openai/other"),
    ops.SetMode("plan"),
    ops.SetEffort("high"),
    ops.Undo(2, True),
    ops.Rewind(3, "files"),
    ops.Fork(4, "copy"),
    ops.Rename("title"),
    ops.Remember("tabs are 4 wide"),
    ops.ActivateSkill("db-migrations"),
    ops.RunCommand("/cost"),
    ops.Review("v1"),
    ops.Shell("ls"),
    ops.Prepare(),
    ops.Interrupt(),
    ops.Approve("a1", "allow_session", "git status"),
]


class TestUnions:
    def test_every_operation_has_exactly_one_handler(self):
        assert set(HANDLERS) == set(ops.OP_TYPES)

    def test_every_operation_round_trips_through_json_and_its_schema(self):
        assert {type(s) for s in SAMPLES} == set(ops.OP_TYPES)
        schema = operations_schema()
        for sample in SAMPLES:
            data = json.loads(json.dumps(sample.to_json()))
            jsonschema.validate(data, schema)
            assert ops.op_from_json(data) == sample

    @pytest.mark.parametrize(
        ("data", "said"),
        [
            ({"type": "sned", "text": "x"}, "unknown operation type 'sned'"),
            ({"type": "send"}, "`text` is required"),
            ({"type": "undo", "turns": "2"}, "`turns` must be an integer"),
            ({"type": "approve", "request_id": "a1", "action": "yes"}, "`action` must be one of"),
            ({"type": "send", "text": "x", "extra": 1}, "unknown field(s) extra"),
            (["send"], "a JSON object"),
            ({"type": "send", "text": "x", "images": "a.png"}, "`images` must be a list"),
            ({"type": "send", "text": "x", "images": [{"name": "a.png"}]}, "`images[0]` must be an object"),
        ],
    )
    def test_malformed_operations_say_what_is_wrong(self, data, said):
        with pytest.raises(ops.BadOperation, match=None) as caught:
            ops.op_from_json(data)
        assert said in str(caught.value)

    def test_an_operation_is_ended_by_its_own_end_not_a_turns_finishing_meanwhile(self):
        """A command submitted while a turn runs is not ended by the turn's `work_finished`
        (or another operation's refusal) landing in the log before its reply."""
        from agent_tui.core.protocol_events import ends

        cost = ops.RunCommand("/cost")
        assert not ends(cost, pe.WorkFinished("send", "done"))
        assert not ends(cost, pe.OperationRefused("send", "busy"))
        assert ends(cost, pe.CommandReplied("/cost", "", "info"))
        assert ends(cost, pe.OperationRefused("command", "not offered"))
        assert ends(ops.Send("hi"), pe.WorkFinished("send", "done"))

    def test_the_committed_schemas_are_generated(self):
        """docs/protocol/*.json equal what the declarations generate (docs_gen.py rewrites them)."""
        from agent_tui.core.protocol_schema import as_text

        for name, schema in (("operations", operations_schema()), ("events", events_schema())):
            assert (ROOT / "docs" / "protocol" / f"{name}.schema.json").read_text() == as_text(schema)

    def test_every_event_type_is_in_the_events_schema(self):
        tags = {
            arm["properties"]["type"]["const"]
            for arm in events_schema()["$defs"].values()
            if "type" in arm.get("properties", {}) and "const" in arm["properties"]["type"]
        }
        assert tags == {cls.type for cls in typing.get_args(pe.ProtocolEvent)}


async def drive(driver: SessionDriver, op: ops.Op) -> list[ev.AgentEvent]:
    return [event async for event in driver.drive(op)]


class TestDriver:
    async def test_a_turn_with_an_approval_answered_by_an_operation(self, server, driver, workspace):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo made > made.txt"})]), Reply(text="done"))
        start = driver.log.last_id
        await driver.submit(ops.Send("make a file"))
        seen: list[ev.AgentEvent] = []
        schema = events_schema()
        async for _, event in driver.log.follow(start):
            seen.append(event)
            jsonschema.validate(json.loads(json.dumps(event.to_json())), schema)
            if isinstance(event, pe.ApprovalRequested):
                assert event.tool == "bash" and "made.txt" in event.preview
                await driver.submit(ops.Approve(event.request_id, "allow_once"))
            if isinstance(event, pe.WorkFinished):
                break
        types = [e.type for e in seen]
        assert (
            types.index("approval_requested")
            < types.index("approval_resolved")
            < types.index("turn_finished")
        )
        assert (workspace / "made.txt").read_text() == "made\n"
        assert seen[-1] == pe.WorkFinished("send", "done")

    async def test_a_fork_ends_its_operation_with_the_copy(self, server, driver):
        """`drive(fork)` returns (it waited forever when the fork's event did not end it)."""
        server.enqueue(Reply(text="hi"))
        await drive(driver, ops.Send("hello"))
        events = await asyncio.wait_for(drive(driver, ops.Fork(title="copy")), 30)
        assert isinstance(events[-1], pe.SessionForked) and events[-1].title == "copy"
        assert events[-1].session_id != driver.require().session_id

    async def test_the_sink_has_each_event_before_the_session_goes_on(self, server, driver, workspace):
        """What an editor needs: a tool call shown (and answered, from the sink) before it runs;
        every event reaches the sink once, in log order."""
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo made > made.txt"})]), Reply(text="done"))
        seen: list[tuple[int, str, bool]] = []

        async def sink(event_id: int, event: ev.AgentEvent) -> None:
            seen.append((event_id, event.type, (workspace / "made.txt").exists()))
            if isinstance(event, pe.ApprovalRequested):
                await driver.submit(ops.Approve(event.request_id, "allow_once"))

        driver.sink = sink
        start = driver.log.last_id
        events = await drive(driver, ops.Send("make a file"))
        assert [t for _, t, _ in seen] == [e.type for e in events]
        assert [i for i, _, _ in seen] == list(range(start + 1, start + 1 + len(events)))
        made = {t: exists for _, t, exists in seen}
        assert made["tool_call_started"] is False and made["approval_requested"] is False
        assert made["tool_call_finished"] is True
        assert events[-1] == pe.WorkFinished("send", "done")

    async def test_an_unanswered_approval_is_denied_visibly_after_its_timeout(
        self, server, driver, workspace
    ):
        driver.approval_timeout = 0.05
        server.enqueue(Reply(tool_calls=[("bash", {"command": "touch nope"})]), Reply(text="ok"))
        events = await drive(driver, ops.Send("touch it"))
        resolved = [e for e in events if isinstance(e, pe.ApprovalResolved)]
        assert [(r.action, r.by) for r in resolved] == [("deny", "timeout")]
        assert not (workspace / "nope").exists()

    async def test_busy_refuses_then_interrupt_ends_the_work(self, server, driver):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "touch x"})]), Reply(text="ok"))
        start = driver.log.last_id
        await driver.submit(ops.Send("go"))
        async for _, event in driver.log.follow(start):
            if isinstance(event, pe.ApprovalRequested):
                asked = event
                break
        refused = await drive(driver, ops.Rename("not now"))
        assert isinstance(refused[-1], pe.OperationRefused) and "busy" in refused[-1].message
        await driver.submit(ops.Interrupt())
        tail = [e for _, e in driver.log.after(start)]
        assert tail[-2:] == [
            pe.WorkFinished("send", "interrupted"),
            pe.ApprovalResolved(asked.request_id, "deny", "interrupt"),
        ]

    async def test_session_operations_answer_with_replies(self, server, driver):
        assert "Renamed: a title" in (await drive(driver, ops.Rename("a title")))[-1].text  # type: ignore[attr-defined]
        assert driver.require().title == "a title"
        cost = (await drive(driver, ops.RunCommand("/cost")))[-1]
        assert isinstance(cost, pe.CommandReplied) and "Input" in cost.text
        refused = (await drive(driver, ops.RunCommand("/theme")))[-1]
        assert isinstance(refused, pe.OperationRefused)
        effort = (await drive(driver, ops.SetEffort("sideways")))[-1]
        assert isinstance(effort, pe.CommandReplied) and effort.level == "warning"
        assert server.requests == []

    async def test_activate_skill_loads_it_and_an_empty_name_lists_them(self, server, workspace, tmp_path):
        """`activate_skill` is the one way a front end loads a skill (the TUI's and the editor's
        /skill): it answers with a reply, the skill is in the next request's system prompt, an
        empty name lists the skills and an unknown one is a warning that names it."""
        from agent_tui.runtime import paths
        from tests.support.skills import write_skill

        write_skill(paths.config_dir() / "skills")
        services = await build_services(
            make_config(server, tmp_path / "s.db", cwd=workspace), workspace=workspace
        )
        driver = SessionDriver(services, approval_timeout=30)
        driver.session = await services.new_session(driver.approver)
        try:
            listed = (await drive(driver, ops.ActivateSkill("")))[-1]
            assert isinstance(listed, pe.CommandReplied) and "db-migrations" in listed.text
            unknown = (await drive(driver, ops.ActivateSkill("nope")))[-1]
            assert isinstance(unknown, pe.CommandReplied) and unknown.level == "warning"
            assert "nope" in unknown.text
            loaded = (await drive(driver, ops.ActivateSkill("db-migrations")))[-1]
            assert isinstance(loaded, pe.CommandReplied) and "db-migrations active" in loaded.text
            server.enqueue(Reply(text="ok"))
            await drive(driver, ops.Send("go"))
            assert "Reviewing database migrations" in json.dumps(server.requests[-1]["messages"])
        finally:
            await driver.close()
            await services.close()

    async def test_a_picture_that_is_not_base64_refuses_the_send(self, server, driver):
        """Said in one event before any request; the next send carries no stale picture."""
        bad = ops.Send("look", (ops.Picture("shot.png", "image/png", "not base64!"),))
        refused = (await drive(driver, bad))[-1]
        assert isinstance(refused, pe.OperationRefused) and "shot.png" in refused.message
        assert server.requests == [] and driver.require().record.pending_images == []

    async def test_set_model_goes_on_with_the_conversation(self, server, driver):
        server.enqueue(Reply(text="first"), Reply(text="second"))
        await drive(driver, ops.Send("remember pelicans"))
        replaced = (await drive(driver, ops.SetModel("openai/other-model")))[-1]
        assert isinstance(replaced, pe.SessionReplaced) and replaced.model == "openai/other-model"
        await drive(driver, ops.Send("what did I say?"))
        assert server.requests[-1]["model"] == "other-model"
        assert "pelicans" in json.dumps(server.requests[-1]["messages"])
