"""Custom slash commands from Markdown: `.claude/commands/review.md` with `$ARGUMENTS` and a
`` !`git diff --stat` `` line sends the expanded prompt from the TUI (Pilot) and from
`agent-tui run`; sub-folders give `/folder:name`; an untrusted folder's commands do not apply."""

from __future__ import annotations

import json
import subprocess

import pytest

from agent_tui.base.user_command_text import custom_command_text
from agent_tui.frontends.tui import slash
from agent_tui.policy import trust
from agent_tui.runtime import paths
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.cli import run_cli as cli
from tests.support.hooks import user_config
from tests.support.ui_helpers import make_app, until
from tests.support.ui_session_fixtures import send

REVIEW = """---
description: Review the changes in one area
argument-hint: AREA
allowed-tools: Bash(git diff:*)
---
Review the $ARGUMENTS code. What changed so far:
!`git diff --stat`
Start with $1.
"""


def git(folder, *args):
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(workspace):
    """A git repository with one changed file and the review command."""
    git(workspace, "init", "-q")
    (workspace / "auth.py").write_text("def login():\n    pass\n")
    git(workspace, "add", "auth.py")
    git(workspace, "commit", "-qm", "start")
    (workspace / "auth.py").write_text(
        "def login():\n    return check()\n\n\ndef check():\n    return True\n"
    )
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW)
    (commands / "frontend").mkdir()
    (commands / "frontend" / "test.md").write_text(
        "---\ndescription: run the UI tests\n---\nRun the $1 UI tests.\n"
    )
    return workspace


def sent_prompt(server) -> str:
    return server.requests[0]["messages"][-1]["content"]


class TestHeadless:
    def test_review_expands_arguments_and_the_granted_diff(self, server, repo, tmp_path):
        """`run "/review auth"` (no --yes): allowed-tools covers `git diff --stat`, so it runs
        without a question and its output is in the prompt sent."""
        user_config(server, tmp_path / "c.db")
        trust.add(repo)
        server.enqueue(Reply(text="looks fine"))
        out = cli(["run", "/review auth"], repo)
        assert out.returncode == 0, out.stderr
        prompt = sent_prompt(server)
        assert prompt.startswith("Review the auth code. What changed so far:\n")
        assert "auth.py | " in prompt and "1 file changed" in prompt
        assert prompt.endswith("Start with auth.\n\n<command-name>/review auth</command-name>")
        assert "!`" not in prompt

    def test_an_inline_command_not_granted_asks_and_headless_refuses(self, server, repo, tmp_path):
        """Outside allowed-tools an inline command goes through the normal approval: headless
        without --yes it is not run, and the prompt says so."""
        user_config(server, tmp_path / "d.db")
        (repo / ".claude" / "commands" / "wipe.md").write_text("Before: !`touch MADE`\nGo.\n")
        trust.add(repo)
        server.enqueue(Reply(text="ok"))
        out = cli(["run", "/wipe"], repo)
        assert out.returncode == 0, out.stderr
        assert not (repo / "MADE").exists()
        assert "`touch MADE` was not run" in sent_prompt(server)

    def test_sub_folder_command_and_positional_arguments(self, server, repo, tmp_path):
        """`.claude/commands/frontend/test.md` is `/frontend:test`; `$1` is the first word."""
        user_config(server, tmp_path / "f.db")
        trust.add(repo)
        server.enqueue(Reply(text="ok"))
        out = cli(["run", "/frontend:test login page"], repo)
        assert out.returncode == 0, out.stderr
        assert sent_prompt(server) == custom_command_text(
            "/frontend:test login page", "Run the login UI tests."
        )

    def test_untrusted_project_commands_are_sent_as_typed(self, server, repo, tmp_path):
        """In an untrusted folder `.claude/commands` are project settings left out; a user-dir
        command still applies."""
        user_config(server, tmp_path / "u.db")
        mine = paths.config_dir() / "commands"
        mine.mkdir(parents=True)
        (mine / "hello.md").write_text("Say hello to $ARGUMENTS.\n")
        server.enqueue(Reply(text="ok"))
        # The project's review.md is left out, so the built-in /review runs (`auth` is no revision).
        out = cli(["run", "/review auth"], repo)
        assert out.returncode == 1 and "auth" in out.stdout
        assert server.requests == []
        assert cli(["run", "/hello the team"], repo).returncode == 0
        assert server.requests[0]["messages"][-1]["content"] == custom_command_text(
            "/hello the team", "Say hello to the team."
        )


class TestTui:
    async def test_review_in_the_tui_sends_the_expanded_prompt(self, server, repo, tmp_path):
        """`/review auth` typed in the TUI: the menu offers it with its source file, and the
        request carries the expanded prompt with the diff stat."""
        trust.add(repo)
        config = make_config(server, tmp_path / "t.db", cwd=repo)
        server.enqueue(Reply(text="reviewed"))
        app = make_app(config, repo)
        try:
            async with app.run_test(size=(120, 36)) as pilot:
                await until(pilot, lambda: app.view.session is not None, what="the session")
                await until(pilot, lambda: slash.lookup("review") is not None, what="custom commands")
                assert [c.name for c in slash.completions("/rev")] == ["review"]
                assert "review.md" in slash.lookup("review").help
                await send(pilot, "/review auth")
                sent = sent_prompt(server)
                assert sent.startswith("Review the auth code.") and "auth.py | " in sent
        finally:
            slash.set_custom([])


class TestAttachments:
    def test_an_at_path_in_the_body_attaches_the_file(self, server, repo, tmp_path):
        """`@auth.py` in a command's body attaches the file as in a typed prompt (a `model:` is
        applied: test_command_model.py)."""
        user_config(server, tmp_path / "a.db")
        (repo / ".claude" / "commands" / "explain.md").write_text(
            "---\ndescription: explain auth\n---\nExplain @auth.py to $ARGUMENTS.\n"
        )
        trust.add(repo)
        server.enqueue(Reply(text="ok"))
        out = cli(["run", "/explain a new hire"], repo)
        assert out.returncode == 0, out.stderr
        sent = json.dumps(server.requests[0]["messages"])
        assert "return check()" in sent and "to a new hire." in sent
