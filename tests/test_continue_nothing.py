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
