"""`!command`: the user's own command runs unasked in the configured sandbox, its output is a
stored output with a ref, and the next turn's model sees it (roles still alternate)."""

from __future__ import annotations

import json

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli


class TestUserCommand:
    def test_run_bang_command_then_the_next_turn_sees_it(self, server, workspace, tmp_path):
        """`run "!ls"` runs without --yes and without a model call; `run --continue` sends the
        command and its output as one user turn merged with the new prompt."""
        (workspace / "alpha.txt").write_text("a\n")
        (workspace / "beta.txt").write_text("b\n")
        db = tmp_path / "u.db"
        first = run_cli(["run", "!ls", "--json", *flags(server, db)], workspace)
        assert first.returncode == 0, first.stderr
        assert server.requests == []  # no model call for the user's own command
        events = [json.loads(line) for line in first.stdout.splitlines()]
        finished = [e for e in events if e["type"] == "tool_call_finished"][0]
        assert "alpha.txt" in finished["view"] and finished["ref"]["id"].startswith("r_")
        assert "alpha.txt" in events[-1]["text"]

        server.enqueue(Reply(text="two files"))
        second = run_cli(["run", "how many files?", "--continue", *flags(server, db)], workspace)
        assert second.returncode == 0, second.stderr
        sent = server.requests[-1]["messages"]
        roles = [m["role"] for m in sent]
        assert roles == ["system", "user"]  # the command and the prompt: one user turn
        text = (
            sent[-1]["content"] if isinstance(sent[-1]["content"], str) else json.dumps(sent[-1]["content"])
        )
        assert "The user ran this command in the workspace: `ls` · output ref r_" in text
        assert "alpha.txt" in text and "beta.txt" in text and finished["ref"]["id"] in text
        assert "how many files?" in text

    def test_bang_command_runs_in_the_sandbox(self, server, workspace, tmp_path, isolated_home):
        """The user's command is confined like any: a write outside the workspace fails."""
        from agent_tui.tools.sandbox import probe

        if not probe().bwrap:
            import pytest

            pytest.skip("bubblewrap is not installed")
        outside = tmp_path / "outside.txt"
        out = run_cli(["run", f"!echo x > {outside}", "--json", *flags(server, tmp_path / "s.db")], workspace)
        assert out.returncode == 0, out.stderr
        assert not outside.exists()
