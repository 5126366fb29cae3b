"""A path argument with a NUL byte is a tool error the model can read, never the end of the run:
every path argument of every tool, and `@path` in a prompt."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.attachments import mentioned_paths
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type

CALLS = [
    ("write_file", {"path": "a\x00b.txt", "content": "x"}),
    ("edit_file", {"path": "a\x00b.txt", "old_string": "x", "new_string": "y"}),
    ("read_file", {"path": "a\x00b.txt"}),
    ("grep", {"pattern": "x", "path": "a\x00b"}),
    ("grep", {"pattern": "x", "glob": "*\x00.py"}),
    ("glob", {"pattern": "*\x00.py"}),
    ("glob", {"pattern": "*.py", "path": "a\x00b"}),
    ("list_dir", {"path": "a\x00b"}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[f"{t}-{'-'.join(a)}" for t, a in CALLS])
@pytest.mark.parametrize("yes", [True, False], ids=["--yes", "asking"])
async def test_nul_in_a_path_is_a_tool_error(workspace, tmp_path, tool, args, yes):
    """wall: tools — a NUL byte in a path argument is an error result; the turn goes on to its answer."""

    def respond(body: dict) -> Reply:
        if body["messages"][-1]["role"] == "user":
            return Reply(tool_calls=[(tool, args)])
        return Reply(text="carried on")

    with FakeOpenAI(window=32_000, responder=respond) as srv:
        services = await build_services(make_config(srv, tmp_path / "c.db"), workspace=workspace)
        try:
            session = await services.new_session(yes=yes)
            events = await collect(session.run_turn("go"))
        finally:
            await services.close()
    assert not of_type(events, ev.ErrorEvent)
    finished = of_type(events, ev.ToolCallFinished)
    assert finished
    # A path is refused; a glob pattern with NUL may just match nothing.
    assert finished[0].is_error or "path" not in args
    # Asking or not: a call that cannot apply is an error before any approval, and the turn goes on.
    assert of_type(events, ev.TurnFinished)[-1].text == "carried on"


def test_nul_in_an_at_mention_is_plain_text(workspace):
    """wall: tools — `@a<NUL>b` in a prompt attaches nothing and raises nothing."""
    (workspace / "a").write_text("x")
    assert mentioned_paths("look at @a\x00b please", workspace) == []
