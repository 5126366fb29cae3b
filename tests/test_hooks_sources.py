"""Where hooks come from and what a malformed one costs: the user's and a trusted project's
all load, Claude Code's nested shape maps to ours, a bad entry is one notice naming its file and
line, and the rest still load."""

from __future__ import annotations

import json

import pytest

from agent_tui.hooks.answer import read_answer
from agent_tui.hooks.process import ProcessResult
from agent_tui.hooks.sources import load_hooks
from agent_tui.runtime import paths
from agent_tui.tools.registry import ToolRegistry, builtin_tools


@pytest.fixture(autouse=True)
def builtin_tools_declared():
    """A `.claude/` matcher (`Bash`) is matched against the Claude Code names our tools declare:
    as in a session, the built-in tools are built before any hook fires."""
    ToolRegistry(builtin_tools())


def user_toml(text: str) -> None:
    path = paths.user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


class TestSources:
    def test_user_and_trusted_project_hooks_all_load(self, workspace):
        """A user hook, a project .agent-tui.toml hook and a .claude/ hook all run (none
        replaces another); the .claude/ matcher `Bash` matches our `bash`."""
        user_toml('[[hooks.PreToolUse]]\nmatcher = "bash"\ncommand = "mine.sh"\n')
        (workspace / ".agent-tui.toml").write_text('[[hooks.PreToolUse]]\ncommand = "project.sh"\n')
        (workspace / ".claude").mkdir()
        (workspace / ".claude" / "settings.json").write_text(
            json.dumps(
                {
                    "hooks": {
                        "PreToolUse": [
                            {"matcher": "Edit|Bash", "hooks": [{"type": "command", "command": "claude.sh"}]}
                        ]
                    }
                }
            )
        )
        hooks = load_hooks(workspace, trusted=True)
        assert [h.command for h in hooks.for_event("PreToolUse", "bash")] == [
            "mine.sh",
            "project.sh",
            "claude.sh",
        ]
        assert [h.command for h in hooks.for_event("PreToolUse", "edit_file")] == ["project.sh", "claude.sh"]
        assert [h.command for h in hooks.for_event("PreToolUse", "read_file")] == ["project.sh"]
        assert not hooks.notices

    def test_untrusted_project_hooks_are_withheld_and_named(self, workspace):
        """In an untrusted folder only the user's hooks load; the project's are listed."""
        user_toml('[[hooks.Stop]]\ncommand = "mine.sh"\n')
        (workspace / ".claude").mkdir()
        (workspace / ".claude" / "settings.local.json").write_text(
            json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "theirs.sh"}]}]}})
        )
        hooks = load_hooks(workspace, trusted=False)
        assert [h.command for h in hooks.hooks] == ["mine.sh"]
        assert hooks.withheld == ("settings.local.json Stop hook (runs theirs.sh)",)

    def test_a_malformed_entry_is_one_notice_with_file_and_line_and_the_rest_load(self, workspace):
        """A bad regex and a missing command are each one notice naming file:line; good
        entries beside them load; broken JSON names its line."""
        (workspace / ".claude").mkdir()
        settings = {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash(", "hooks": [{"type": "command", "command": "bad-regex.sh"}]},
                    {
                        "matcher": "Bash",
                        "hooks": [{"type": "command"}, {"type": "command", "command": "good.sh"}],
                    },
                ]
            }
        }
        (workspace / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
        (workspace / ".claude" / "settings.local.json").write_text('{\n  "hooks": {\n    "Stop": [,]\n}\n')
        hooks = load_hooks(workspace, trusted=True)
        assert [h.command for h in hooks.hooks] == ["good.sh"]
        regex, missing, broken = hooks.notices
        assert "settings.json:" in regex and "bad-regex.sh" in regex and "not a valid regex" in regex
        assert "needs a command" in missing
        assert "settings.local.json:3:" in broken and "not valid JSON" in broken


class TestAnswers:
    def test_exit_codes_and_json_read_as_claude_code_documents(self):
        """exit 2 blocks with stderr; other codes are reported, not blocking; JSON answers give
        permissionDecision, updatedInput, additionalContext and continue:false."""

        def result(code, out="", err=""):
            return ProcessResult(code, out, err, 0.1)

        assert read_answer("PreToolUse", result(2, err="no rm\n"), 60).reason == "no rm"
        other = read_answer("PreToolUse", result(1, err="oops"), 60)
        assert not other.blocked and other.failed and other.message == "exit 1: oops"
        deny = json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "nope",
                }
            }
        )
        answer = read_answer("PreToolUse", result(0, deny), 60)
        assert answer.blocked and answer.permission == "deny" and answer.reason == "nope"
        rewrite = json.dumps(
            {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}}
        )
        answer = read_answer("PreToolUse", result(0, rewrite), 60)
        assert (
            not answer.blocked and answer.permission == "allow" and answer.updated_input == {"command": "ls"}
        )
        ctx = json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "additionalContext": "it is Tuesday",
                }
            }
        )
        assert read_answer("UserPromptSubmit", result(0, ctx), 60).context == "it is Tuesday"
        assert read_answer("UserPromptSubmit", result(0, "plain words\n"), 60).context == "plain words"
        assert read_answer("PostToolUse", result(0, "plain words\n"), 60).context == ""
        stop = read_answer("Stop", result(0, json.dumps({"continue": False, "stopReason": "enough"})), 60)
        assert stop.stop == "enough"
        killed = read_answer("Stop", ProcessResult(None, "", "", 1.0, timed_out=True), 1)
        assert killed.failed and not killed.blocked and "timed out after 1 s" in killed.message


class TestSubagentStop:
    async def test_subagent_stop_sends_the_child_back_once_and_reports_the_runs(self, workspace):
        """A sub-agent's stop fires SubagentStop: exit 2 gives the instruction to continue with;
        with stop_hook_active it lets the child stop; each run is a hook event to drain."""
        from agent_tui.hooks.runner import HookRunner
        from agent_tui.hooks.sources import HookSet
        from agent_tui.hooks.spec import HookSpec
        from agent_tui.hooks.turn_hooks import stop

        command = """if [ "$(jq -r .stop_hook_active)" = true ]; then exit 0; fi; echo 'cite the file' >&2; exit 2"""
        specs = HookSet((HookSpec("SubagentStop", command), HookSpec("Stop", "exit 2")))
        hooks = HookRunner(specs, workspace, "s_child", subagent=True)
        assert await stop(hooks, active=False) == "[Stop hook] cite the file"
        assert await stop(hooks, active=True) is None
        assert [(e.event, e.outcome) for e in hooks.drain()] == [
            ("SubagentStop", "blocked"),
            ("SubagentStop", "ok"),
        ]


class TestToolNames:
    def test_claude_code_names_map_to_ours_mcp_included(self):
        """A .claude matcher uses Claude Code's names (Edit, mcp__git__log) and its stdin says
        them; our own matcher takes our names, MCP tools either way."""
        from agent_tui.hooks.spec import HookSpec

        claude = HookSpec("PreToolUse", "x", matcher="Edit|mcp__git__.*", claude=True)
        assert claude.matches("edit_file") and claude.matches("git__log")
        assert not claude.matches("write_file") and not claude.matches("bash")
        assert claude.tool_name("git__log") == "mcp__git__log" and claude.tool_name("edit_file") == "Edit"
        ours = HookSpec("PreToolUse", "x", matcher="bash|mcp__git__log")
        assert ours.matches("bash") and ours.matches("git__log") and not ours.matches("edit_file")
        assert ours.tool_name("git__log") == "git__log"
