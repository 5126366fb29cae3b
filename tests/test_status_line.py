"""Issue 45 #4: the status line under the meter — a command of the user's (`[status_line]
command`, or Claude Code's `statusLine`), JSON about the session on stdin, its first stdout line
shown; a command that hangs is cut at its limit while the TUI stays responsive; a project's
command runs only in a trusted folder. The real app, driven by Pilot; an 80×24 snapshot."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.frontends.tui.widgets.status_line import StatusLineBar
from agent_tui.hooks.status_line import find_command
from agent_tui.policy import trust
from agent_tui.policy.claude_permissions import user_settings_file
from tests.support import snapshots
from tests.support.agent_fixtures import make_config
from tests.support.snapshots import ready, resumed_app
from tests.support.ui_helpers import make_app, settle, until

fixed_workspace = snapshots.fixed_workspace
sandbox_off = snapshots.sandbox_off  # autouse


def bar(app) -> StatusLineBar:
    return app.query_one(StatusLineBar)


def shown(app) -> str:
    return str(bar(app).render())


class TestCommand:
    async def test_first_line_of_the_command_under_the_meter(self, server, workspace, tmp_path):
        seen = tmp_path / "payload.json"
        command = f"cat > {seen}; echo 'main · all good'; echo 'second line never shown'"
        config = make_config(server, tmp_path / "a.db", cwd=workspace, status_line={"command": command})
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await until(pilot, lambda: "all good" in shown(app), what="the status line")
            assert "second line" not in shown(app)
        data = json.loads(seen.read_text())
        assert data["model"]["id"] == "openai/fake-model" and data["workspace"]["current_dir"] == str(
            workspace
        )
        assert data["context"]["window_tokens"] == 32_000

    async def test_a_hanging_command_is_cut_and_the_tui_stays_responsive(self, server, workspace, tmp_path):
        config = make_config(
            server, tmp_path / "h.db", cwd=workspace, status_line={"command": "sleep 60", "timeout": 1.0}
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            bar(app).request()  # the line refreshes again (as after a turn)
            await until(pilot, lambda: bar(app)._running, what="the command running")
            await pilot.press("h", "i")  # typed while the command hangs
            assert app.view.prompt.text == "hi"
            assert bar(app)._running
            await until(pilot, lambda: "stopped after 1 s" in shown(app), what="the cut")

    async def test_no_command_no_line(self, server, workspace, tmp_path):
        app = make_app(make_config(server, tmp_path / "n.db", cwd=workspace), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert not bar(app).display


class TestSources:
    def claude(self, folder: Path, command: str) -> None:
        (folder / ".claude").mkdir(exist_ok=True)
        (folder / ".claude" / "settings.json").write_text(
            json.dumps({"statusLine": {"type": "command", "command": command, "padding": 0}})
        )

    def test_a_projects_status_line_runs_only_when_trusted(self, workspace):
        self.claude(workspace, "echo project")
        assert find_command(None, workspace, trusted=False) is None
        found = find_command(None, workspace, trusted=True)
        assert found is not None and found.command == "echo project"

    def test_the_users_claude_status_line_and_our_own_key_first(self, workspace):
        mine = user_settings_file()
        mine.parent.mkdir(parents=True, exist_ok=True)
        mine.write_text(json.dumps({"statusLine": {"type": "command", "command": "echo mine"}}))
        found = find_command(None, workspace, trusted=False)
        assert found is not None and found.command == "echo mine"
        own = find_command("echo own", workspace, trusted=False)
        assert own is not None and own.source == "[status_line] command"

    async def test_untrusted_project_command_never_runs_in_the_app(self, server, workspace, tmp_path):
        marker = tmp_path / "RAN"
        self.claude(workspace, f"touch {marker}; echo ran")
        app = make_app(make_config(server, tmp_path / "u.db", cwd=workspace), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert not bar(app).display
        assert not marker.exists()
        trust.add(workspace)
        app = make_app(make_config(server, tmp_path / "u2.db", cwd=workspace), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await until(pilot, lambda: "ran" in shown(app), what="the trusted command")
        assert marker.exists()


def test_status_line_snapshot(snap_compare, server, tmp_path, fixed_workspace):
    """80×24: the user's line under the meter."""
    config = make_config(
        server, tmp_path / "s.db", status_line={"command": "echo 'fake-model · main · 2 files changed'"}
    )
    app = resumed_app(config, fixed_workspace)

    async def run_before(pilot):
        await ready(pilot)
        await until(pilot, lambda: "files changed" in shown(pilot.app), what="the status line")

    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))
