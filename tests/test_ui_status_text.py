"""Found by trying the TUI as a new user (issue 32, QA lane): `/status` read `Sandbox  Sandbox
workspace-write …` and `/diff` read `1 file(s) changed`."""

from __future__ import annotations

from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, send, settle, until


class TestStatusAndDiffWording:
    async def test_status_names_the_sandbox_once(self, server, tmp_path, workspace):
        """The Sandbox row starts with the mode, not the word Sandbox again."""
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/status")
            await until(pilot, lambda: "Sandbox" in printed(app), what="/status")
            row = next(line for line in printed(app).splitlines() if line.startswith("Sandbox"))
            assert not row.split(None, 1)[1].startswith("Sandbox"), row

    async def test_diff_counts_one_file_in_the_singular(self, server, tmp_path, workspace):
        """One changed file reads `1 file changed`."""
        (workspace / "app.py").write_text("x = 3\n")
        server.enqueue(
            Reply(
                tool_calls=[("edit_file", {"path": "app.py", "old_string": "x = 3", "new_string": "x = 4"})]
            ),
            Reply(text="done"),
        )
        config = make_config(server, tmp_path / "ui.db", tools={"allow": ["edit_file"]})
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "change it")
            await settle(pilot)
            assert (workspace / "app.py").read_text() == "x = 4\n"
            await send(pilot, "/diff")
            await until(pilot, lambda: "changed" in printed(app), what="/diff")
            assert "1 file changed: app.py (+1 −1)" in printed(app)
