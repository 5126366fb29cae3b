"""The tools are budgeted like every other component: whatever the window from 4 096 tokens up,
the offered tool descriptions stay under TOOL_SHARE of the effective window (the built-ins go
brief, then the rarely needed ones wait behind tool_search), a big window keeps every full
description, and /tools says what was deferred and why."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.context.deferral import TOOL_SHARE
from agent_tui.tools.registry import builtin_tools
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type

WINDOWS = (4096, 8192, 16_384, 32_768, 131_072)


def names(schemas) -> list[str]:
    return [s["function"]["name"] for s in schemas]


async def measured(tmp_path, workspace, window: int):
    """A session of the factory's full tool set (built-ins, context, background, `task`) at
    `window` with the default reply reserve, measured once."""
    with FakeOpenAI(window=window) as server:
        services = await build_services(
            make_config(server, tmp_path / f"{window}.db", window), workspace=workspace
        )
        try:
            session = await services.new_session()
            return session, session.measure()
        finally:
            await services.close()


@pytest.mark.parametrize("window", WINDOWS)
async def test_tool_descriptions_hold_their_share_of_every_window(tmp_path, workspace, window):
    session, budget = await measured(tmp_path, workspace, window)
    assert budget.tool_descriptions <= TOOL_SHARE * budget.effective_window, budget.to_json()
    # system prompt + tools leave at least half the effective window to the conversation
    assert budget.fixed <= 0.5 * budget.effective_window, budget.to_json()
    offered = names(session.prompts.selection.schemas)
    for core in ("read_file", "write_file", "edit_file", "bash", "grep", "read_result", "recall"):
        assert core in offered, (window, offered)


async def test_a_big_window_keeps_every_full_description(tmp_path, workspace):
    session, _ = await measured(tmp_path, workspace, 131_072)
    selection = session.prompts.selection
    assert not selection.brief and selection.deferred == ()
    bash = next(s for s in selection.schemas if s["function"]["name"] == "bash")
    assert bash == session.prompts.registry.get("bash").spec.schema()


async def test_a_4096_window_is_brief_and_defers_the_rarely_needed(tmp_path, workspace):
    session, _ = await measured(tmp_path, workspace, 4096)
    selection = session.prompts.selection
    assert selection.brief
    assert {"bash_output", "kill_shell", "task"} <= set(selection.deferred)
    bash = next(s for s in selection.schemas if s["function"]["name"] == "bash")
    assert bash["function"]["description"] == session.prompts.registry.get("bash").spec.brief
    rows = {row.name: row for row in session.prompts.tool_table()}
    assert rows["bash"].state == "brief"
    assert rows["kill_shell"].state == "deferred" and "rarely needed" in rows["kill_shell"].why
    assert "25% of the effective window" in session.prompts.tool_share_line()


async def test_a_rarely_needed_builtin_is_found_by_tool_search_and_called(tmp_path, workspace):
    """At 4 096 `bash_output` is deferred; tool_search finds it, the next request offers it."""
    with FakeOpenAI(window=4096) as server:
        services = await build_services(make_config(server, tmp_path / "s.db", 4096), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            server.enqueue(
                Reply(tool_calls=[("tool_search", {"query": "output of a background command"})]),
                Reply(text="found it"),
            )
            events = await collect(session.run_turn("make room"))
        finally:
            await services.close()
    first, second = (names(r["tools"]) for r in server.requests)
    assert "bash_output" not in first and "tool_search" in first
    assert "bash_output" in second
    assert "bash_output" in of_type(events, ev.ToolCallFinished)[0].view


def test_every_builtin_declares_a_brief_description():
    """A new built-in left without a brief would keep its full description in a 4 096 window."""
    from agent_tui.tools.background_tools import background_tools
    from agent_tui.tools.context_tools import context_tools
    from agent_tui.tools.tool_search import ToolSearchTool

    for tool in [*builtin_tools(), *context_tools(), *background_tools(), ToolSearchTool()]:
        spec = tool.spec
        assert spec.brief and len(spec.brief) < len(spec.description), spec.name
        bare = spec.brief_schema()["function"]["parameters"]
        assert bare.get("required") == spec.parameters.get("required"), spec.name
        assert set(bare.get("properties", {})) == set(spec.parameters.get("properties", {})), spec.name


async def test_context_footer_names_what_was_deferred_and_why(tmp_path, workspace):
    from agent_tui.core.context_report import tools_line

    session, _ = await measured(tmp_path, workspace, 4096)
    line = tools_line(session)
    assert "built-ins described briefly" in line and "kill_shell (rarely needed" in line
    big, _ = await measured(tmp_path, workspace, 131_072)
    assert tools_line(big) == ""


async def test_tools_command_in_the_app_says_what_was_deferred_and_why(tmp_path, workspace):
    from tests.support.ui_helpers import make_app, printed, send, settle, until

    with FakeOpenAI(window=4096) as server:
        config = make_config(server, tmp_path / "ui.db", 4096, cwd=workspace)
        app = make_app(config, workspace)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            app.view.session.measure()  # what the next request offers
            await send(pilot, "/tools")
            await until(pilot, lambda: "kill_shell" in printed(app), what="the /tools block")
            text = printed(app)
    assert "25% of the effective window" in text and "built-ins described briefly" in text
    assert "deferred (rarely needed" in text and "brief" in text
