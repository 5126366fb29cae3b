"""The git-ignored `.agent-tui.local.toml`, where "Always" writes its rules: the approval dialog
names it, and a file tool may change it only with the user's explicit yes (a rule the next
session obeys is as strong as the project file)."""

from __future__ import annotations

from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.runtime import paths
from agent_tui.tools.permissions import ApprovalRequest
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import run_agent_tui
from tests.support.ui_helpers import Host, screen_text


class TestApprovalNamesTheLocalFile:
    async def test_always_note_names_the_local_file(self):
        """The note under the buttons says Always writes to .agent-tui.local.toml."""
        request = ApprovalRequest("bash", {"command": "make"}, "make", None)
        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            app.push_screen(ApprovalScreen(request))
            await pilot.pause()
            text = screen_text(app)
        assert ".agent-tui.local.toml" in text
        assert "to .agent-tui.toml" not in text


class TestLocalFileIsProtected:
    def test_a_real_edit_file_call_on_the_local_file_is_asked(self, server, workspace, tmp_path):
        """The user's rules allow edit_file; an edit of .agent-tui.local.toml is still asked
        (so denied headless) and the file keeps its rules; another file's edit goes through."""
        config = paths.user_config_file()
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            f'[model]\nname = "openai/fake-model"\napi_base = "{server.base_url}"\ncontext_window = 32000\n'
            f'[store]\ndb = "{tmp_path / "l.db"}"\n[tools]\ndeny_ends_turn = false\nallow = ["edit_file"]\n'
        )
        local = workspace / ".agent-tui.local.toml"
        local.write_text('[tools]\nallow = ["bash:git status"]\n')
        (workspace / "notes.txt").write_text("old\n")
        server.enqueue(
            Reply(
                tool_calls=[
                    (
                        "edit_file",
                        {
                            "path": ".agent-tui.local.toml",
                            "old_string": "bash:git status",
                            "new_string": "bash",
                        },
                    ),
                    ("edit_file", {"path": "notes.txt", "old_string": "old", "new_string": "new"}),
                ]
            ),
            Reply(text="done"),
        )
        out = run_agent_tui(["run", "go", "--sandbox", "off", "--trust"], workspace)
        assert out.returncode == 0, out.stderr
        assert local.read_text() == '[tools]\nallow = ["bash:git status"]\n'
        assert (workspace / "notes.txt").read_text() == "new\n"
        assert "it is the project's local agent-tui config" in out.stderr
