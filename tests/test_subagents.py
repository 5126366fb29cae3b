"""Sub-agents in one process (the factory the CLI uses, the local server, a real database):
approvals flow to the parent's approver, limits hold, answers are cut and stored, recall sees
the children's work with the parent's."""

from __future__ import annotations

import json
import re

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.subagents import CURRENT_AGENT
from agent_tui.compose.factory import build_services
from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.subagent_model import Model, after_tool, first_user_text, steps, tool_results


async def services_for(server: FakeOpenAI, tmp_path, workspace, **sections):
    config = make_config(server, tmp_path / "a.db", 64_000, sandbox={"mode": "off"}, **sections)
    return await build_services(config, workspace=workspace)


def tasks(*briefs: str) -> Reply:
    return Reply(tool_calls=[("task", {"description": b.split()[0], "prompt": b}) for b in briefs])


async def test_child_approval_names_the_child_and_parent_grants_cover_it(tmp_path, workspace):
    """The child's bash question reaches the parent's approver while CURRENT_AGENT names the
    child; the "allow for this session" answer given to it then covers the parent too (one
    policy), so the parent's same command is not asked again."""
    asked: list[tuple[str | None, str]] = []

    async def approver(request: ApprovalRequest) -> ApprovalDecision:
        asked.append((CURRENT_AGENT.get(), request.tool))
        return ApprovalDecision("allow_session", prefix="echo")

    def child(body):
        if after_tool(body):
            return Reply(text="echoed")
        return Reply(tool_calls=[("bash", {"command": "echo from-child"})])

    def parent(body):
        if not after_tool(body):
            return tasks("probe the shell")
        if "echoed" in json.dumps(body["messages"][-1]) and "from-parent" not in json.dumps(body):
            return Reply(tool_calls=[("bash", {"command": "echo from-parent"})])
        return Reply(text="done")

    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        services = await services_for(server, tmp_path, workspace)
        try:
            session = await services.new_session(approver)
            events = await collect(session.run_turn("go"))
        finally:
            await services.close()
    assert asked == [("probe", "bash")]
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished) and e.call.name == "bash"]
    assert finished and "from-parent" in finished[-1].view


async def test_max_parallel_one_runs_children_one_after_another(tmp_path, workspace):
    """With [agents] max_parallel = 1, the second child's first request comes after the first
    child's last: the semaphore queues it."""

    def child(body):
        return Reply(text="ok") if after_tool(body) else Reply(tool_calls=[("bash", {"command": "true"})])

    def parent(body):
        return Reply(text="done") if after_tool(body) else tasks("first job", "second job")

    model = Model(parent, child)
    with FakeOpenAI(window=64_000, responder=model) as server:
        services = await services_for(server, tmp_path, workspace, agents={"max_parallel": 1})
        try:
            session = await services.new_session(yes=True)
            await collect(session.run_turn("go"))
        finally:
            await services.close()
    order = [first_user_text(b).split()[0] for b in model.child_requests]
    assert order in (["first", "first", "second", "second"], ["second", "second", "first", "first"])


@pytest.mark.parametrize("depth", [1, 2])
async def test_depth_limits_who_gets_the_task_tool(tmp_path, workspace, depth):
    """max_depth 1: a child is offered no task tool; max_depth 2: it is, and its grandchild's
    events reach the top stream naming their own parent."""
    offered: list[list[str]] = []

    def child(body):
        offered.append([t["function"]["name"] for t in body.get("tools", [])])
        if "grand" in first_user_text(body) or after_tool(body) or depth == 1:
            return Reply(text="leaf")
        return tasks("grand child work")

    def parent(body):
        return Reply(text="done") if after_tool(body) else tasks("child work")

    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        services = await services_for(server, tmp_path, workspace, agents={"max_depth": depth})
        try:
            session = await services.new_session(yes=True)
            events = await collect(session.run_turn("go"))
        finally:
            await services.close()
    ends = [e for e in events if isinstance(e, ev.SubagentFinished)]
    if depth == 1:
        assert all("task" not in names for names in offered) and len(ends) == 1
    else:
        assert "task" in offered[0] and len(ends) == 2
        grand = next(e for e in ends if e.description == "grand")
        assert grand.parent_session_id != session.session_id


async def test_long_answer_is_cut_to_result_tokens_and_stored_whole(tmp_path, workspace):
    """A 6 000-word answer: the envelope shows at most [agents] result_tokens of it and names
    the ref that holds all of it; grep_result on that ref finds the last word."""
    words = " ".join(f"word{i}" for i in range(6000))

    def child(body):
        return Reply(text=words + " THE-END")

    def parent(body):
        return Reply(text="done") if after_tool(body) else tasks("write a lot")

    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        services = await services_for(server, tmp_path, workspace, agents={"result_tokens": 500})
        try:
            session = await services.new_session(yes=True)
            events = await collect(session.run_turn("go"))
            (done,) = [e for e in events if isinstance(e, ev.ToolCallFinished)]
            counted = session.meter.counter.count_text(done.view)
            ref = re.search(r"whole: (r_[0-9a-f]{10})", done.view)
            assert ref
            whole = await services.store.results.grep(ref.group(1), "THE-END", session_id=session.session_id)
        finally:
            await services.close()
    assert "(cut)" in done.view and "THE-END" not in done.view
    assert counted <= 500 + 150  # the answer's share, plus the envelope's three lines
    assert "1 matching" in whole or "THE-END" in whole.split("\n", 1)[1]


async def test_recall_in_session_scope_searches_the_children(tmp_path, workspace):
    """recall(scope="session") from the parent finds what only a child's command printed."""

    def child(body):
        if after_tool(body):
            return Reply(text="printed it")
        return Reply(tool_calls=[("bash", {"command": "echo kumquat-marmalade-42"})])

    def parent(body):
        if not after_tool(body):
            return tasks("print a fruit")
        if steps(body) == 1:
            return Reply(tool_calls=[("recall", {"query": "kumquat", "scope": "session"})])
        return Reply(text="\n".join(tool_results(body)))

    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        services = await services_for(server, tmp_path, workspace)
        try:
            session = await services.new_session(yes=True)
            events = await collect(session.run_turn("go"))
        finally:
            await services.close()
    answer = [e for e in events if isinstance(e, ev.TurnFinished)][-1].text
    (child_id,) = {e.session_id for e in events if isinstance(e, ev.SubagentFinished)}
    assert "kumquat" in answer and child_id in answer


async def test_sessions_list_and_resume_picker_show_the_tree(tmp_path, workspace):
    """A child is listed right under its parent, indented with ↳, in `sessions list` and in
    the /resume picker; an unrelated newer session stays a root."""
    from agent_tui.base.messages import user
    from agent_tui.frontends.tui.session_list import session_rows
    from tests.support.cli import run_cli

    with FakeOpenAI(window=64_000) as server:
        services = await services_for(server, tmp_path, workspace)
        try:
            store = services.store
            parent = await store.sessions.create(str(workspace), "m", title="parent work")
            child = await store.sessions.create(str(workspace), "m", title="child work", parent_id=parent.id)
            other = await store.sessions.create(str(workspace), "m", title="other work")
            for info in (parent, child, other):
                await store.sessions.append(info.id, [user(info.title or "")])
            rows = await session_rows(services)
        finally:
            await services.close()
    assert [r.title for r in rows] == ["other work", "parent work", "  ↳ child work"]
    listing = run_cli(["sessions", "list", "--db", str(tmp_path / "a.db")], workspace)
    assert listing.returncode == 0, listing.stderr
    lines = [line for line in listing.stdout.splitlines() if "work" in line]
    assert [line.split()[0] for line in lines] == [other.id, parent.id, child.id]
    assert "↳ child work" in lines[2]
