"""The slash commands Claude Code users reach for, through the real app: /clear, /status, /cost,
/diff, /config and /memory each print a block in the chat."""

from __future__ import annotations

import pytest

from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, send, settle, until, until_approval


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def run_command(pilot, command: str) -> str:
    before = printed(pilot.app)
    await send(pilot, command)
    await settle(pilot)
    await until(pilot, lambda: len(printed(pilot.app)) > len(before), what=command)
    return printed(pilot.app)[len(before) :]


class TestStatusCommands:
    async def test_status_cost_config_memory(self, server, config, workspace, monkeypatch):
        """/status names the model, folder, trust, sandbox, session and window; /cost the tokens;
        /config the settings and files; /memory where the memories and rules live."""
        monkeypatch.delenv("EDITOR", raising=False)  # with one, /memory opens a chooser instead
        monkeypatch.delenv("VISUAL", raising=False)
        server.enqueue(Reply(text="hello"))
        (workspace / "AGENTS.md").write_text("Be brief.\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            status = await run_command(pilot, "/status")
            for part in ("Model", "openai/fake-model", "Folder", "Trust", "Sandbox", "Session", "Context"):
                assert part in status, status
            assert app.view.session.session_id in status
            cost = await run_command(pilot, "/cost")
            assert "Input" in cost and "Output" in cost and "unknown" in cost
            shown = await run_command(pilot, "/config model")
            assert 'model.name = "openai/fake-model"' in shown and "agent.warn_at" not in shown
            memory = await run_command(pilot, "/memory")
            assert "AGENTS.md" in memory and "Memories" in memory

    async def test_clear_starts_a_new_session(self, server, config, workspace):
        """`/clear` is Claude Code's `/new`."""
        server.enqueue(Reply(text="hello"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            first = app.view.session.session_id
            await send(pilot, "/clear")
            await settle(pilot)
            assert app.view.session.session_id != first
            assert app.view.session.history == [] or all(m.role == "system" for m in app.view.session.history)

    async def test_diff_shows_what_the_session_changed(self, server, config, workspace):
        """/diff: the edit the session made, as a unified diff against the file before it."""
        (workspace / "app.py").write_text("total = 1\n")
        server.enqueue(
            Reply(
                tool_calls=[
                    ("edit_file", {"path": "app.py", "old_string": "total = 1", "new_string": "total = 2"})
                ]
            ),
            Reply(text="done"),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert "changed no files" in await run_command(pilot, "/diff")
            await send(pilot, "change it")
            await until_approval(pilot)
            await pilot.press("1", "enter")
            await settle(pilot)
            shown = await run_command(pilot, "/diff")
            assert "app.py (+1 −1)" in shown
            assert "-total = 1" in shown and "+total = 2" in shown and "a/app.py" in shown
