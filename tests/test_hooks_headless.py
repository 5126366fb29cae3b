"""Hooks through the real `agent-tui run`, in a project holding a real `.claude/settings.json`
whose hook scripts are written the way Claude Code users write them (bash + jq): they run
unchanged in a trusted folder, and not at all in an untrusted one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit.fake_openai import Reply
from tests.support.cli import run_cli as cli
from tests.support.hooks import NO_RM, claude_settings, events_of, group, script, user_config

DENY_RF = """#!/bin/bash
# From the Claude Code docs' pattern: answer with permissionDecision JSON.
input=$(cat)
command=$(echo "$input" | jq -r '.tool_input.command')
if [[ "$command" == *"chmod -R 777"* ]]; then
  jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "world-writable trees are not allowed"}}'
  exit 0
fi
if [[ "$command" == echo* ]]; then
  jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "echo is harmless"}}'
fi
exit 0
"""

LOG_TOOLS = """#!/bin/bash
jq -r '.tool_name' >> "$CLAUDE_PROJECT_DIR/tools.log"
"""

PROMPT_CONTEXT = """#!/bin/bash
echo "ticket context: ABC-123 is about the login page"
"""

STOP_ONCE = """#!/bin/bash
if [ "$(jq -r '.stop_hook_active')" = "true" ]; then exit 0; fi
echo "run the tests before you stop" >&2
exit 2
"""

SLOW = """#!/bin/bash
sleep 300 &
echo $! > "$CLAUDE_PROJECT_DIR/slow.pid"
wait
"""


@pytest.fixture
def project(server, workspace, tmp_path):
    """A Claude Code project: every hook of the issue in `.claude/settings.json`."""
    user_config(server, tmp_path / "h.db")
    claude_settings(
        workspace,
        {
            "PreToolUse": [group("Bash", script(workspace, "no-rm.sh", NO_RM))],
            "PostToolUse": [group("Bash|Read|Edit|Write", script(workspace, "log-tools.sh", LOG_TOOLS))],
            "UserPromptSubmit": [group(None, script(workspace, "context.sh", PROMPT_CONTEXT))],
            "Stop": [group(None, script(workspace, "stop-once.sh", STOP_ONCE))],
        },
    )
    (workspace / "keep.txt").write_text("precious\n")
    return workspace


def tool_messages(request: dict) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


class TestTrustedClaudeProject:
    def test_the_issue_hooks_each_do_their_part(self, server, project):
        """rm is refused (never runs, the model reads why, the user sees it); each tool name is
        logged; the prompt hook's stdout reaches the request; the Stop hook sends the agent back
        to work exactly once."""
        assert cli(["trust", "add"], project).returncode == 0
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "rm keep.txt"})]),
            Reply(tool_calls=[("read_file", {"path": "keep.txt"})]),
            Reply(text="kept it"),
            Reply(text="tests pass too"),
        )
        out = cli(["run", "clean up", "--yes", "--json"], project)
        assert out.returncode == 0, out.stderr
        assert (project / "keep.txt").read_text() == "precious\n"
        first = server.requests[0]["messages"]
        assert "ticket context: ABC-123" in first[-1]["content"]
        assert "rm is not allowed in this repo" in tool_messages(server.requests[1])[0]
        assert (project / "tools.log").read_text().split() == ["Read"]
        last = server.requests[-1]["messages"]
        assert last[-1] == {"role": "user", "content": "[Stop hook] run the tests before you stop"}
        assert len(server.requests) == 4
        events = events_of(out)
        assert events[-1]["text"] == "tests pass too"
        hooks = [e for e in events if e["type"] == "hook"]
        blocked = [e for e in hooks if e["outcome"] == "blocked"]
        assert [(e["event"], e["message"]) for e in blocked] == [
            ("PreToolUse", "rm is not allowed in this repo"),
            ("Stop", "run the tests before you stop"),
        ]
        assert {e["event"] for e in hooks} >= {"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}
        assert all(e["source"].endswith("settings.json") for e in hooks)

    def test_plain_run_tells_the_user_what_was_blocked(self, server, project):
        """Without --json the refusal is a line on stderr naming the hook and its reason."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "rm keep.txt"})]), Reply(text="ok"), Reply(text="ok")
        )
        out = cli(["run", "clean", "--yes", "--trust"], project)
        assert out.returncode == 0, out.stderr
        assert "hook PreToolUse" in out.stderr and "blocked: rm is not allowed in this repo" in out.stderr
        assert (project / "keep.txt").exists()

    def test_permission_decision_json_denies_and_allows(self, server, workspace, tmp_path):
        """A hook answering with hookSpecificOutput.permissionDecision: deny blocks with its
        reason; allow lets a call run without --yes (no approval asked)."""
        user_config(server, tmp_path / "p.db")
        claude_settings(workspace, {"PreToolUse": [group("Bash", script(workspace, "perm.sh", DENY_RF))]})
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "chmod -R 777 ."})]),
            Reply(tool_calls=[("bash", {"command": "echo hi > said.txt"})]),
            Reply(text="done"),
        )
        out = cli(["run", "go", "--trust"], workspace)
        assert out.returncode == 0, out.stderr
        results = tool_messages(server.requests[-1])
        assert "world-writable trees are not allowed" in results[0]
        assert (workspace / "said.txt").read_text() == "hi\n", results

    def test_updated_input_replaces_the_arguments_that_run(self, server, workspace, tmp_path):
        """updatedInput rewrites the call before it runs (and before it is approved)."""
        user_config(server, tmp_path / "u.db")
        rewrite = """#!/bin/bash
jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow",
     updatedInput: {command: (.tool_input.command + " > rewritten.txt")}}}'
"""
        claude_settings(workspace, {"PreToolUse": [group("Bash", script(workspace, "rw.sh", rewrite))]})
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo changed"})]), Reply(text="done"))
        out = cli(["run", "go", "--trust"], workspace)
        assert out.returncode == 0, out.stderr
        assert (workspace / "rewritten.txt").read_text() == "changed\n"

    def test_a_hook_past_its_timeout_is_killed_and_the_turn_goes_on(self, server, workspace, tmp_path):
        """A PostToolUse hook sleeping past its 1 s timeout is killed with its children, reported,
        and the turn ends normally."""
        user_config(server, tmp_path / "t.db")
        claude_settings(
            workspace, {"PostToolUse": [group("Bash", script(workspace, "slow.sh", SLOW), timeout=1)]}
        )
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo hi"})]), Reply(text="finished"))
        out = cli(["run", "go", "--yes", "--json", "--trust"], workspace)
        assert out.returncode == 0, out.stderr
        events = events_of(out)
        assert events[-1]["text"] == "finished"
        (timed_out,) = [e for e in events if e["type"] == "hook"]
        assert timed_out["outcome"] == "timeout" and timed_out["exit_code"] is None
        pid = int((workspace / "slow.pid").read_text())
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


class TestUntrusted:
    def test_no_project_hook_runs_and_the_notice_lists_them(self, server, project):
        """The same folder, untrusted: rm runs (with --yes), nothing is logged, the prompt goes
        out unchanged, Stop does not bounce, and stderr names each withheld hook's command."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "rm keep.txt"})]),
            Reply(text="removed"),
        )
        out = cli(["run", "clean up", "--yes"], project)
        assert out.returncode == 0, out.stderr
        assert not (project / "keep.txt").exists()
        assert not (project / "tools.log").exists()
        assert server.requests[0]["messages"][-1]["content"] == "clean up"
        assert len(server.requests) == 2
        assert "hook PreToolUse" not in out.stderr
        assert "not trusted" in out.stderr and "no-rm.sh" in out.stderr and "stop-once.sh" in out.stderr

    def test_changing_the_settings_asks_for_trust_again(self, server, project):
        """Trust covers .claude/settings.json as it was: an edited hook file does not run."""
        assert cli(["trust", "add"], project).returncode == 0
        settings = project / ".claude" / "settings.json"
        settings.write_text(settings.read_text().replace("Bash|Read", "Read"))
        server.enqueue(Reply(text="hello"))
        out = cli(["run", "hi"], project)
        assert out.returncode == 0, out.stderr
        assert "changed since you trusted it" in out.stderr
        assert "ticket context" not in server.requests[0]["messages"][-1]["content"]


LOG_EVENT = """#!/bin/bash
jq -c '{event: .hook_event_name, trigger: .trigger, source: .source, message: .message, reason: .reason}' >> "$CLAUDE_PROJECT_DIR/events.log"
"""

LAST_REPLY = """#!/bin/bash
# A Stop hook reading the session's transcript, as Claude Code's Stop hooks do.
tail -n 1 "$(jq -r .transcript_path)" | jq -r .message.content > "$CLAUDE_PROJECT_DIR/last.txt"
"""


class TestLifecycleEvents:
    def test_session_compact_notification_and_end_events_fire_in_order(self, server, workspace, tmp_path):
        """One run that compacts first and then asks for approval fires SessionStart (startup),
        PreCompact (manual), Notification (the approval) and SessionEnd, each once; the Stop hook
        reads the transcript, which already holds the final reply."""
        user_config(server, tmp_path / "l.db")
        log = script(workspace, "log.sh", LOG_EVENT)
        events = ["SessionStart", "PreCompact", "Notification", "SessionEnd"]
        claude_settings(
            workspace,
            {
                **{name: [group(None, log)] for name in events},
                "Stop": [group(None, script(workspace, "last.sh", LAST_REPLY))],
            },
        )
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "new.txt", "content": "x"})]),
            Reply(text="could not write it"),
        )
        out = cli(["run", "write a file", "--compact", "--trust"], workspace)
        assert out.returncode == 0, out.stderr
        seen = [json.loads(line) for line in (workspace / "events.log").read_text().splitlines()]
        assert [e["event"] for e in seen] == ["PreCompact", "SessionStart", "Notification", "SessionEnd"]
        assert seen[0]["trigger"] == "manual" and seen[1]["source"] == "startup"
        assert seen[2]["message"] == "agent-tui needs your permission to use write_file"
        assert seen[3]["reason"] == "exit"
        assert (workspace / "last.txt").read_text().strip() == "could not write it"


class TestClaudeToolInput:
    def test_a_formatter_hook_gets_claude_code_names_and_an_absolute_file_path(
        self, server, workspace, tmp_path
    ):
        """PostToolUse matching `Write|Edit` (Claude Code's names) runs after write_file and reads
        `.tool_name` = Write and `.tool_input.file_path` (absolute), as a formatter hook does."""
        user_config(server, tmp_path / "w.db")
        fmt = '#!/bin/bash\njq -r \'"\\(.tool_name) \\(.tool_input.file_path)"\' >> "$CLAUDE_PROJECT_DIR/fmt.log"\n'
        claude_settings(workspace, {"PostToolUse": [group("Write|Edit", script(workspace, "fmt.sh", fmt))]})
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "src/a.py", "content": "x = 1\n"})]),
            Reply(tool_calls=[("bash", {"command": "true"})]),
            Reply(text="done"),
        )
        out = cli(["run", "write it", "--yes", "--trust"], workspace)
        assert out.returncode == 0, out.stderr
        assert (workspace / "fmt.log").read_text() == f"Write {workspace.resolve()}/src/a.py\n"
