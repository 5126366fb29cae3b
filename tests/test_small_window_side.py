"""At 4 096 tokens what is sent in every request besides the conversation holds its share: the
pins are held to a tenth of the window (the configured 2 000 tokens alone would leave the
conversation nothing) and say so when full; a long task list shows its open tasks first and
counts the rest in a line that says why. Both against the fake server, through the loop."""

from __future__ import annotations

import json
import re

from agent_tui.compose.factory import build_services
from agent_tui.context.side_state import PIN_SHARE, TODO_SHARE
from agent_tui.core.driver import SessionDriver
from agent_tui.frontends.cli.run_slash import command_reply
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config

WINDOW = 4096


async def test_pins_are_held_to_their_share_of_a_small_window(tmp_path, workspace):
    with FakeOpenAI(window=WINDOW) as server:
        services = await build_services(make_config(server, tmp_path / "p.db", WINDOW), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            effective = session.measure().effective_window
            words = " ".join(f"step{i}" for i in range(200))  # ~400 tokens: under 2 000, over a tenth
            reply = await command_reply(SessionDriver(services, session), "/pin " + words)
            small = await command_reply(SessionDriver(services, session), "/pin keep the request ids")
            context = await command_reply(SessionDriver(services, session), "/context")
            budget = session.measure()
        finally:
            await services.close()
    assert reply.level == "warning" and "Pins are full" in reply.text, reply.text
    assert f"held to 10% of the {effective:,}-token window".replace(",", " ") in reply.text, reply.text
    assert "Pinned p1" in small.plain()
    assert budget.pin_budget == int(PIN_SHARE * effective) < 2000
    assert "held to 10%" in context.plain(), context.plain()


async def test_a_long_task_list_shows_open_tasks_first_within_its_share(tmp_path, workspace):
    todos = [
        {"content": f"Check request batch {i} for failed ids", "status": "completed" if i < 30 else "pending",
         "activeForm": f"Checking batch {i}"}
        for i in range(40)
    ]  # fmt: skip
    with FakeOpenAI(window=WINDOW) as server:
        services = await build_services(make_config(server, tmp_path / "t.db", WINDOW), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(Reply(tool_calls=[("todo", {"todos": todos})]), Reply(text="listed"))
            await collect(session.run_turn("plan the checks"))
            section = session.side.state.todo_text()
            budget = session.measure()
        finally:
            await services.close()
    last = json.dumps(server.requests[-1])
    assert "Check request batch 39" in last  # an open task is sent
    assert all(f"Check request batch {i} " in section for i in range(30, 40)), section  # open first
    assert re.search(
        r"\[… \d+ more tasks \(\d+ completed\) not shown: the list is held to 5% of this small window\]",
        section,
    ), section
    assert session.meter.counter.count_text(section) <= TODO_SHARE * budget.effective_window


async def test_a_sub_agent_at_4096_has_its_own_budgeted_window(tmp_path, workspace):
    """`task` waits behind tool_search at 4 096; found and called, the child runs in its own
    window of the same size: its tools are brief and within their share, and no request of the
    parent or the child passes the window (the server counts 1.3× our estimate)."""
    from agent_tui.context.deferral import TOOL_SHARE
    from tests.support.subagent_model import Model

    def parent(body: dict) -> Reply:
        answered = sum(1 for m in body["messages"] if m["role"] == "tool")
        if answered == 0:
            return Reply(tool_calls=[("tool_search", {"query": "delegate work to a sub-agent"})])
        if answered == 1:
            return Reply(tool_calls=[("task", {"description": "ids", "prompt": "list the failed ids"})])
        return Reply(text="the child answered")

    model = Model(parent, lambda body: Reply(text="ids 3f2a and 9c01"))
    with FakeOpenAI(window=WINDOW, token_scale=1.3, responder=model) as server:
        services = await build_services(make_config(server, tmp_path / "c.db", WINDOW), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            events = await collect(session.run_turn("find the failed ids"))
        finally:
            await services.close()
    assert model.child_requests, [e for e in events if type(e).__name__ == "ErrorEvent"]
    for body in server.requests:
        assert server.prompt_tokens_of(body) + body["max_tokens"] <= WINDOW
    child = model.child_requests[0]
    tools = FakeOpenAI(window=WINDOW).prompt_tokens_of({"messages": [], "tools": child["tools"]})
    assert tools <= TOOL_SHARE * (WINDOW - child["max_tokens"]) * 1.3, tools
    assert events[-1].stop_reason == "done" and events[-1].text == "the child answered"


async def test_many_skills_at_4096_keep_their_index_within_its_share(tmp_path, workspace):
    """Sixty skills with long descriptions: at 4 096 their index is held to its share and says
    so, and a skill left out of it still loads by name through the `skill` tool."""
    from agent_tui.extensions.skills import INDEX_SHARE
    from agent_tui.runtime import paths
    from tests.support.skills import write_skill

    for i in range(60):
        text = f"---\nname: skill{i}\ndescription: {'Checks request batches for failed ids and latencies ' * 5}\n---\nStep {i}.\n"
        write_skill(paths.config_dir() / "skills", f"skill{i}", text)
    with FakeOpenAI(window=WINDOW) as server:
        config = make_config(server, tmp_path / "k.db", WINDOW, cwd=workspace)
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            budget = session.measure()
            index = session.prompts.user_prompts._index.text
            server.enqueue(Reply(tool_calls=[("skill", {"name": "skill59"})]), Reply(text="loaded"))
            events = await collect(session.run_turn("use skill59"))
        finally:
            await services.close()
    assert session.meter.counter.count_text(index) <= INDEX_SHARE * budget.effective_window, index
    assert "held to 5% of this small window" in index and "more not listed" in index, index
    assert budget.fixed <= 0.5 * budget.effective_window, budget.to_json()
    assert "Step 59." in json.dumps(server.requests[-1])  # loaded by name though not listed
    assert events[-1].stop_reason == "done"
