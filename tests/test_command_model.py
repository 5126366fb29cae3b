"""A custom command's `model:` front matter: that command's turn runs on the named model and the
session is back on its own model after it, in `run "/cmd"` and in the TUI (real local server,
the request's `model` field shows which one answered)."""

from __future__ import annotations

import pytest

from agent_tui.base.user_command_text import custom_command_text
from agent_tui.frontends.tui import slash
from agent_tui.frontends.tui.transcript import NoticeEntry
from agent_tui.policy import trust
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import make_config
from tests.support.extend import cli, commands_ready, write, write_user_config
from tests.support.ui_helpers import make_app, until
from tests.support.ui_session_fixtures import send

EXPLAIN = "---\ndescription: explain a file\nmodel: {model}\n---\nExplain $ARGUMENTS briefly.\n"


@pytest.fixture
def server():
    """One local server answering for the session's model and for small-model."""
    with FakeOpenAI(window=32_000, also_serves=("small-model",)) as srv:
        yield srv


def topbar(app) -> str:
    from textual.widgets import Static

    return str(app.query_one("#topbar", Static).render())


def command(workspace, model: str) -> None:
    write(workspace / ".claude/commands/explain.md", EXPLAIN.format(model=model))
    trust.add(workspace)


def run_explain(server, workspace, tmp_path, model: str) -> tuple[str, list[str]]:
    """`run "/explain auth.py"` with the command asking for `model`: stderr, the models asked."""
    write_user_config(server, tmp_path / "r.db")
    command(workspace, model)
    server.enqueue(Reply(text="ok"))
    out = cli(["run", "/explain auth.py"], workspace)
    assert out.returncode == 0, out.stderr
    return out.stderr, [r["model"] for r in server.requests]


def test_run_sends_the_command_on_its_model_and_says_so(server, workspace, tmp_path):
    """`run "/explain auth.py"` with `model: openai/small-model` (the same server): the request
    names small-model and stderr says the turn ran on it."""
    stderr, models = run_explain(server, workspace, tmp_path, "openai/small-model")
    assert models == ["small-model"]
    assert server.requests[0]["messages"][-1]["content"] == custom_command_text(
        "/explain auth.py", "Explain auth.py briefly."
    )
    assert "/explain runs on openai/small-model for this turn" in stderr


def test_a_claude_code_alias_is_said_and_the_session_model_answers(server, workspace, tmp_path):
    """`model: haiku` (Claude Code's alias, no model name here): one notice, the turn runs on
    the session's model instead of failing at the provider."""
    stderr, models = run_explain(server, workspace, tmp_path, "haiku")
    assert models == ["fake-model"]
    assert "model: haiku" in stderr and "stays on openai/fake-model" in stderr


async def test_tui_runs_the_command_on_its_model_then_goes_back(server, workspace, tmp_path):
    """In the TUI: `/explain auth.py` goes out on small-model, the next message on the
    session's own model, the chat says so, and the top bar names the session's model again."""
    command(workspace, "openai/small-model")
    config = make_config(server, tmp_path / "t.db", cwd=workspace)
    server.enqueue(Reply(text="it logs in"), Reply(text="you are welcome"))
    app = make_app(config, workspace)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await commands_ready(pilot, "explain")
            await send(pilot, "/explain auth.py")
            await until(pilot, lambda: len(server.requests) == 1, what="the command's request")
            await until(pilot, lambda: "openai/fake-model" in topbar(app), what="the top bar's model back")
            await send(pilot, "thanks")
            await until(pilot, lambda: len(server.requests) == 2, what="the next request")
            assert [r["model"] for r in server.requests] == ["small-model", "fake-model"]
            assert app.view.session.model == "openai/fake-model"
            said = [e.text for e in app.view.chat.entries if isinstance(e, NoticeEntry)]
            assert any(t.startswith("/explain runs on openai/small-model for this turn") for t in said)
    finally:
        slash.set_custom([])


async def test_a_failing_command_turn_still_puts_the_model_back(server, workspace, tmp_path):
    """`model: openai/missing-model`, which the server does not serve: the command's turn fails
    with the provider's one-line error, and the next message goes out on the session's model."""
    command(workspace, "openai/missing-model")
    config = make_config(server, tmp_path / "f.db", cwd=workspace)
    server.enqueue(Reply(text="fine"))
    app = make_app(config, workspace)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await commands_ready(pilot, "explain")
            await send(pilot, "/explain auth.py")
            await until(pilot, lambda: not app.view.session.busy, what="the failed turn's end")
            app.view.prompt.set_text("")
            await send(pilot, "thanks")
            await until(pilot, lambda: len(server.requests) >= 2, what="the next request")
            assert [r["model"] for r in server.requests][-1] == "fake-model"
            assert server.requests[0]["model"] == "missing-model"
            assert app.view.session.model == "openai/fake-model"
    finally:
        slash.set_custom([])
