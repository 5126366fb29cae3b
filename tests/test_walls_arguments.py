"""Decisions are made on exactly the arguments that run: the policy sees the schema-coerced
arguments the tool then gets, so a string `"true"` cannot drop the sandbox unasked."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.tools.permissions import ApprovalDecision
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type


def one_call(args: dict):
    """A model that makes one bash call with `args`, then finishes."""

    def respond(body: dict) -> Reply:
        if body["messages"][-1]["role"] == "user":
            return Reply(tool_calls=[("bash", args)])
        return Reply(text="finished")

    return respond


async def run_once(tmp_path: Path, ws: Path, args: dict, *, yes: bool, approver=None, **sections):
    with FakeOpenAI(window=32_000, responder=one_call(args)) as srv:
        config = make_config(srv, tmp_path / "c.db", **sections)
        services = await build_services(config, workspace=ws)
        try:
            session = await services.new_session(approver, yes=yes)
            return await collect(session.run_turn("go"))
        finally:
            await services.close()


UNSANDBOXED_SPELLINGS = ["true", "True", " TRUE "]


@pytest.mark.parametrize("spelling", UNSANDBOXED_SPELLINGS)
@pytest.mark.parametrize(
    "setting",
    [
        {"yes": True},
        {"yes": False, "sandbox": {"auto_approve": True}},
        {"yes": False, "tools": {"allow": ["bash:touch"]}},
    ],
    ids=["--yes", "auto_approve", "allow-rule"],
)
async def test_string_true_cannot_leave_the_sandbox_unasked(bwrap, ws, tmp_path, spelling, setting):
    """wall: approval — `"unsandboxed": "true"` is the same request as `true`: headless, refused."""
    target = tmp_path / "outside" / "PWNED"
    target.parent.mkdir()
    sections = {k: v for k, v in setting.items() if k != "yes"}
    events = await run_once(
        tmp_path, ws, {"command": f"touch {target}", "unsandboxed": spelling}, yes=setting["yes"], **sections
    )
    assert not target.exists(), "ran outside the sandbox without anyone being asked"
    notices = [e.message for e in of_type(events, ev.Notice)]
    assert any("unsandboxed" in n for n in notices), notices


async def test_interactive_string_true_asks_as_unsandboxed(bwrap, ws, tmp_path):
    """wall: approval — the person is asked about an unsandboxed run, and told so, for `"true"`."""
    target = tmp_path / "outside.txt"
    asked = []

    async def approver(request):
        asked.append(request)
        return ApprovalDecision("deny")

    await run_once(
        tmp_path, ws, {"command": f"touch {target}", "unsandboxed": "true"}, yes=True, approver=approver
    )
    assert len(asked) == 1 and asked[0].once_only and "NOT sandboxed" in (asked[0].sandbox or "")
    assert asked[0].arguments["unsandboxed"] is True, "the dialog shows the arguments that would run"
    assert not target.exists()


@pytest.mark.parametrize("value", ["yes", 1, "1", [True], {"x": 1}])
async def test_unsandboxed_that_is_not_a_boolean_is_a_tool_error(bwrap, ws, tmp_path, value):
    """wall: approval — a value that is neither true nor false never reaches the policy or the tool."""
    target = tmp_path / "outside.txt"
    events = await run_once(tmp_path, ws, {"command": f"touch {target}", "unsandboxed": value}, yes=True)
    finished = of_type(events, ev.ToolCallFinished)
    assert finished and finished[0].is_error
    assert not target.exists()


async def test_undeclared_argument_is_refused(bwrap, ws, tmp_path):
    """wall: tools — an argument the schema does not declare is an error, not passed on unseen."""
    target = tmp_path / "outside.txt"
    events = await run_once(tmp_path, ws, {"command": f"touch {target}", "sandbox": False}, yes=True)
    finished = of_type(events, ev.ToolCallFinished)
    assert finished and finished[0].is_error
    assert not target.exists()


async def test_command_that_is_not_a_string_never_reaches_the_approver(ws, tmp_path):
    """wall: approval — `command: ["make", "test"]` is an argument error, not a question or a match."""
    asked = []

    async def approver(request):
        asked.append(request)
        return ApprovalDecision("allow_once")

    events = await run_once(
        tmp_path,
        ws,
        {"command": ["make", "test"]},
        yes=False,
        approver=approver,
        tools={"allow": ["bash:make test"]},
    )
    finished = of_type(events, ev.ToolCallFinished)
    assert finished and finished[0].is_error and "must be string" in finished[0].view
    assert asked == []


async def test_replace_all_false_as_a_string_replaces_one(workspace, tmp_path):
    """wall: tools — `"replace_all": "false"` means false: an ambiguous edit is refused, not applied twice."""
    (workspace / "a.txt").write_text("x = 1\nx = 1\n")

    def respond(body: dict) -> Reply:
        if body["messages"][-1]["role"] == "user":
            args = {"path": "a.txt", "old_string": "x = 1", "new_string": "x = 2", "replace_all": "false"}
            return Reply(tool_calls=[("edit_file", args)])
        return Reply(text="finished")

    with FakeOpenAI(window=32_000, responder=respond) as srv:
        services = await build_services(make_config(srv, tmp_path / "c.db"), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            await collect(session.run_turn("go"))
        finally:
            await services.close()
    assert (workspace / "a.txt").read_text() == "x = 1\nx = 1\n"
