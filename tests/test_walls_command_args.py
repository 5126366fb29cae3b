"""Round three of the walls: a custom command's arguments are data (issue 40, finding 5).

The user's own `/summ` (`allowed-tools: Bash(echo:*)`) given pasted text holding
`` !`echo ok; touch PWNED` `` ran it with no question: `$ARGUMENTS` was filled in before the body
was scanned for `` !`…` ``, and `Bash(echo:*)` was matched as a plain prefix, covering
`echo ok; touch PWNED`. Real `agent-tui run`, no `--yes`."""

from __future__ import annotations

import pytest

from agent_tui.extensions.commands import CustomCommand
from agent_tui.policy import trust
from testkit.fake_openai import Reply
from tests.support.cli import run_cli as cli
from tests.support.hooks import user_config

SUMM = "---\ndescription: Summarise\nallowed-tools: Bash(echo:*)\n---\nSummarise this: $ARGUMENTS\n"
ECHO = "---\nallowed-tools: Bash(echo:*)\n---\nSaid: !`echo $ARGUMENTS`\n"


def _command(folder, name, text):
    commands = folder / ".claude" / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    (commands / f"{name}.md").write_text(text)
    trust.add(folder)


def test_pasted_inline_command_in_the_arguments_stays_text(server, workspace, tmp_path):
    user_config(server, tmp_path / "s.db")
    _command(workspace, "summ", SUMM)
    server.enqueue(Reply(text="summary"))
    out = cli(["run", "/summ notes: !`echo ok; touch PWNED` end"], workspace)
    assert out.returncode == 0, out.stderr
    assert not (workspace / "PWNED").exists()
    sent = server.requests[0]["messages"][-1]["content"]
    # The expanded body, then the invocation as typed (<command-name>, as Claude Code sends it).
    assert sent.split("\n")[0] == "Summarise this: notes: !`echo ok; touch PWNED` end"


def test_arguments_inside_an_inline_command_are_one_quoted_word(server, workspace, tmp_path):
    user_config(server, tmp_path / "e.db")
    _command(workspace, "say", ECHO)
    server.enqueue(Reply(text="ok"))
    out = cli(["run", "/say ok; touch PWNED"], workspace)
    assert out.returncode == 0, out.stderr
    assert not (workspace / "PWNED").exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo ok; touch PWNED",
        "echo ok && touch PWNED",
        "echo ok || touch PWNED",
        "echo ok | sh",
        "echo ok\ntouch PWNED",
        "echo $(touch PWNED)",
        "echo `touch PWNED`",
        "echo ok > ~/.bashrc",
        "echoo ok",
    ],
)
def test_a_prefix_grant_never_covers_a_chained_command(command, tmp_path):
    rule = CustomCommand("summ", tmp_path / "summ.md", "", "", None, ("Bash(echo:*)",), "")
    assert not rule.grants(command)


def test_a_prefix_grant_covers_the_plain_command(tmp_path):
    rule = CustomCommand("summ", tmp_path / "summ.md", "", "", None, ("Bash(echo:*)", "Bash(git status)"), "")
    assert rule.grants("echo ok") and rule.grants("echo") and rule.grants("git  status")
    assert not rule.grants("git status; rm -rf x")
