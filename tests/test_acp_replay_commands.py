"""An editor reloading a session (`session/load`) sees a `!command` the user ran as the TUI's resume
shows it: what the user typed, then the command's tool card with its output, never the text the
model was given."""

from __future__ import annotations

import json

from agent_tui.frontends.acp.replay import replay
from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli, stored_transcript


def kinds(updates) -> list[str]:
    return [u.session_update for u in updates]


class TestReplayedCommand:
    def test_a_bang_command_replays_as_its_tool_card(self, server, workspace, tmp_path):
        """`run "!echo …"` then a prompt: the replay is the user's `!echo …`, a bash card titled
        with the command holding its output and ref, then the next prompt and reply."""
        db = tmp_path / "b.db"
        first = run_cli(["run", "!echo from-bang", "--json", *flags(server, db)], workspace)
        assert first.returncode == 0, first.stderr
        session_id = json.loads(first.stdout.splitlines()[-1])["session_id"]
        server.enqueue(Reply(text="saw it"))
        second = run_cli(["run", "what did it say?", "--continue", *flags(server, db)], workspace)
        assert second.returncode == 0, second.stderr

        updates = list(replay(stored_transcript(db, session_id)))
        assert kinds(updates) == [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "user_message_chunk",
            "agent_message_chunk",
        ]
        typed, card, result, prompt, _ = updates
        assert typed.content.text == "!echo from-bang"
        assert card.kind == "execute" and card.title == "echo from-bang"
        assert card.raw_input == {"command": "echo from-bang"}
        assert result.tool_call_id == card.tool_call_id and result.status == "completed"
        shown = result.content[0].content.text
        assert "from-bang" in shown and "The user ran" not in shown
        assert result.raw_output["ref"]
        assert prompt.content.text == "what did it say?"
        said = json.dumps([u.model_dump(mode="json") for u in updates])
        assert "[The user ran this command" not in said

    def test_two_commands_get_two_cards(self, server, workspace, tmp_path):
        """Each `!command` is its own card with its own id, in order."""
        db = tmp_path / "two.db"
        first = run_cli(["run", "!echo one", "--json", *flags(server, db)], workspace)
        session_id = json.loads(first.stdout.splitlines()[-1])["session_id"]
        assert run_cli(["run", "!echo two", "--continue", *flags(server, db)], workspace).returncode == 0
        cards = [u for u in replay(stored_transcript(db, session_id)) if u.session_update == "tool_call"]
        assert [c.title for c in cards] == ["echo one", "echo two"]
        assert len({c.tool_call_id for c in cards}) == 2
