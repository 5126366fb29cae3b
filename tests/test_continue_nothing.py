"""`agent-tui -c` where no session was ever stored says so in one line (TUI notice, and `run -c`
on stderr in plain and --json mode), then starts a new session, as Claude Code does."""

from __future__ import annotations

import json

import pytest

from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.cli import flags, run_cli
from tests.support.ui_helpers import make_app, screen_text, settle


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def test_tui_continue_without_a_session_says_so(config, workspace):
    """The TUI with -c in a folder without sessions shows a notice naming it, on a new session."""
    app = make_app(config, workspace, continue_=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.view.session is not None
        assert "No earlier session in this directory" in screen_text(app)


def test_run_continue_json_without_a_session_says_so_on_stderr(server, workspace, tmp_path):
    """`run -c --json` with nothing to continue: one stderr line, stdout stays JSON lines."""
    server.enqueue(Reply(text="hi"))
    out = run_cli(["run", "hello", "-c", "--json", *flags(server, tmp_path / "c.db")], workspace)
    assert out.returncode == 0, out.stderr
    assert "no earlier session in this directory" in out.stderr
    assert all(json.loads(line) for line in out.stdout.splitlines())


def test_run_continue_skips_an_empty_launch(server, workspace, tmp_path):
    """A TUI launch that sent nothing (an empty stored session) newer than the real conversation:
    `run -c` continues the conversation, as /resume lists only sessions with messages."""
    import asyncio

    from agent_tui.base.messages import assistant, user
    from agent_tui.store import open_store

    db = tmp_path / "k.db"

    async def seed() -> str:
        store = await open_store(db)
        try:
            used = await store.sessions.create(str(workspace.resolve()), "openai/fake-model")
            await store.sessions.append(used.id, [user("fix it"), assistant("fixed")])
            await store.sessions.create(str(workspace.resolve()), "openai/fake-model")
            return used.id
        finally:
            await store.close()

    used = asyncio.run(seed())
    server.enqueue(Reply(text="again"))
    out = run_cli(["run", "and again", "-c", "--json", *flags(server, db)], workspace)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1])["session_id"] == used
