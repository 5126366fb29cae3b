"""Issue 43, missing #3: a `.claude/settings.json` with `permissions` (allow / ask / deny in Claude
Code's own syntax) applies as written — the user's always, a project's only when trusted — and
editing its `permissions` does not withhold the hooks of a trusted folder. Headless through the
real `agent-tui run`, and in the real app."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.hooks.sources import load_hooks
from agent_tui.policy import trust
from agent_tui.policy.claude_permissions import user_settings_file
from agent_tui.policy.permission_rules import AllowRule
from agent_tui.runtime import paths
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, send, settle, until, until_approval

SETTINGS = {
    "permissions": {
        "allow": ["Bash(touch:*)", "Edit(src/**)", "WebFetch(domain:docs.python.org)", "mcp__time__now"],
        "ask": ["Bash(touch ASKED)"],
        "deny": ["Read(./.env)", "Bash(rm:*)"],
    },
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]},
}


def claude_project(workspace: Path, settings: dict | None = None) -> Path:
    folder = workspace / ".claude"
    folder.mkdir(exist_ok=True)
    path = folder / "settings.json"
    path.write_text(json.dumps(settings or SETTINGS, indent=2))
    return path


def user_config(server: FakeOpenAI, db: Path) -> None:
    path = paths.user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[model]\nname = "openai/fake-model"\napi_base = "{server.base_url}"\ncontext_window = 32000\n'
        f'[store]\ndb = "{db}"\n[tools]\ndeny_ends_turn = false\n[sandbox]\nmode = "off"\n'
    )


def run(workspace: Path, *args: str) -> tuple[int, str]:
    from tests.support.cli import run_cli

    done = run_cli(["run", *args, "go"], workspace)
    return done.returncode, done.stderr


def tool_messages(server: FakeOpenAI) -> list[str]:
    return [str(m["content"]) for m in server.requests[-1]["messages"] if m["role"] == "tool"]


class TestParsing:
    @pytest.mark.parametrize(
        ("claude", "own"),
        [
            ("Bash(git status:*)", ["bash:git status"]),
            ("Bash(npm run test)", ["bash:=npm run test"]),
            ("Bash(npm run *)", ["bash:npm run *"]),
            ("Edit(src/**)", ["edit_file:src/**", "write_file:src/**"]),
            ("Read(./.env)", ["read_file:./.env", "grep:./.env", "glob:./.env", "list_dir:./.env"]),
            ("WebFetch(domain:docs.python.org)", ["web_fetch:docs.python.org"]),
            ("mcp__time__now", ["mcp__time__now"]),
            ("Bash", ["bash"]),
        ],
    )
    def test_claude_syntax_is_the_same_rule_as_ours(self, claude, own):
        """Each Claude Code rule parses to the rules agent-tui's own syntax spells."""
        assert [r.format() for r in AllowRule.parse_all(claude, words=SHIPPED_WORDS)] == own
        assert [r for text in own for r in AllowRule.parse_all(text, words=SHIPPED_WORDS)] == list(
            AllowRule.parse_all(claude, words=SHIPPED_WORDS)
        )

    def test_path_and_domain_rules_match_what_they_name(self, tmp_path):
        edit = AllowRule.parse("edit_file:src/**", words=SHIPPED_WORDS)
        assert edit.matches("edit_file", {"path": "src/a/b.py"}, tmp_path)
        assert not edit.matches("edit_file", {"path": "src/../lib/a.py"}, tmp_path)
        env = AllowRule.parse("read_file:.env", words=SHIPPED_WORDS)  # a bare name: at any depth
        assert env.matches("read_file", {"path": "deep/er/.env"}, tmp_path)
        secrets = AllowRule.parse("read_file:./secrets", words=SHIPPED_WORDS)  # a folder: everything in it
        assert secrets.matches("read_file", {"path": "secrets/k/id"}, tmp_path)
        web = AllowRule.parse("web_fetch:docs.python.org", words=SHIPPED_WORDS)
        assert web.matches("web_fetch", {"url": "https://docs.python.org/3/"})
        assert not web.matches("web_fetch", {"url": "https://docs.python.org.evil.test/"})
        assert AllowRule.parse("mcp__time", words=SHIPPED_WORDS).matches("time__now", {})  # a whole server

    @pytest.mark.parametrize("bad", ["Foo(x)", "WebFetch(example.com)", "Task(x)"])
    def test_a_rule_we_cannot_apply_is_named_at_start(self, bad, tmp_path):
        claude_project(tmp_path, {"permissions": {"allow": [bad]}})
        loaded = load_config(cwd=tmp_path, env={}, trusted=True, rule_words=SHIPPED_WORDS)
        assert any(bad in n and "skipped" in n for n in loaded.notices), loaded.notices


class TestHeadless:
    def test_allow_ask_and_deny_apply_as_written_in_a_trusted_folder(self, server, workspace, tmp_path):
        user_config(server, tmp_path / "h.db")
        claude_project(workspace)
        (workspace / ".env").write_text("SECRET=1\n")
        server.enqueue(
            Reply(
                tool_calls=[
                    ("bash", {"command": "touch ALLOWED"}),  # allow Bash(touch:*)
                    ("bash", {"command": "touch ASKED"}),  # ask beats allow: nobody to ask
                    ("read_file", {"path": ".env"}),  # deny covers a tool that only reads
                    ("bash", {"command": "mkdir made"}),  # no rule: the hint in Claude's syntax
                ]
            ),
            Reply(text="done"),
        )
        code, err = run(workspace, "--trust")
        assert code == 0, err
        assert (workspace / "ALLOWED").exists() and not (workspace / "ASKED").exists()
        allowed, asked, env, mkdir = tool_messages(server)
        assert "Permission denied for bash: touch ASKED" in asked
        assert "SECRET" not in env and "deny rule read_file:./.env" in env
        assert '"Bash(mkdir:*)" to permissions.allow in .claude/settings.json' in mkdir
        assert not (workspace / "made").exists()

    def test_deny_holds_even_with_yes(self, server, workspace, tmp_path):
        user_config(server, tmp_path / "y.db")
        claude_project(workspace)
        (workspace / "keep").write_text("x")
        server.enqueue(Reply(tool_calls=[("bash", {"command": "rm keep"})]), Reply(text="done"))
        code, err = run(workspace, "--trust", "--yes")
        assert code == 0, err
        assert (workspace / "keep").exists()
        assert "deny rule bash:rm" in tool_messages(server)[0]

    def test_a_projects_rules_wait_for_trust_and_the_users_always_apply(self, server, workspace, tmp_path):
        user_config(server, tmp_path / "u.db")
        claude_project(workspace)
        mine = user_settings_file()
        mine.parent.mkdir(parents=True, exist_ok=True)
        mine.write_text(json.dumps({"permissions": {"allow": ["Bash(mkdir:*)"]}}))
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "touch ALLOWED"}), ("bash", {"command": "mkdir made"})]),
            Reply(text="done"),
        )
        code, err = run(workspace)
        assert code == 0, err
        assert not (workspace / "ALLOWED").exists()
        assert (workspace / "made").is_dir()
        assert "not trusted: .claude/ permission rules not applied" in err
        assert "allow Bash(touch:*)" in err


class TestTrust:
    def test_editing_permissions_keeps_the_hooks_and_withholds_only_new_allow_rules(self, workspace):
        path = claude_project(workspace)
        trust.add(workspace)
        changed = json.loads(path.read_text())
        changed["permissions"]["allow"].append("Bash(curl:*)")
        changed["permissions"]["deny"].append("Bash(sudo:*)")
        path.write_text(json.dumps(changed, indent=4))  # as Claude Code rewrites it
        assert trust.state(workspace) == "trusted"
        assert load_hooks(workspace, trusted=True).hooks  # the hook still runs
        loaded = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
        assert ("deny", "Bash(sudo:*)", "project") in loaded.config.provenance.extra_rules
        assert all(kind != "allow" for kind, _r, _t in loaded.config.provenance.extra_rules)
        assert any("changed since you trusted this folder" in n for n in loaded.notices)
        trust.add(workspace)
        again = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS).config.provenance.extra_rules
        assert ("allow", "Bash(curl:*)", "project") in again

    def test_a_hook_change_still_asks_for_trust_again(self, workspace):
        path = claude_project(workspace)
        trust.add(workspace)
        changed = json.loads(path.read_text())
        changed["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = "curl evil.test"
        path.write_text(json.dumps(changed))
        assert trust.state(workspace) == "changed"

    def test_a_folder_trusted_before_stays_trusted(self, workspace):
        """An entry stored with the hash of the whole file (before permissions were left out)."""
        claude_project(workspace)
        key = trust.folder_key(workspace)
        trust.trust_file().parent.mkdir(parents=True, exist_ok=True)
        entry = {"sha256": trust.content_hash(workspace, whole_settings=True)}
        trust.trust_file().write_text(json.dumps({"folders": {key: entry}}))
        assert trust.state(workspace) == "trusted"


class TestApp:
    async def test_rules_apply_in_the_tui(self, server, workspace, tmp_path):
        """Allow runs unasked, deny refuses without a modal, ask brings the modal up."""
        claude_project(workspace)
        trust.add(workspace)
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "touch ALLOWED"}), ("bash", {"command": "rm -f x"})]),
            Reply(tool_calls=[("bash", {"command": "touch ASKED"})]),
            Reply(text="ok"),
        )
        config = make_config(server, tmp_path / "a.db", cwd=workspace, sandbox={"mode": "off"})
        config_tools = config.tools
        assert config_tools.deny_ends_turn  # a rule's denial must not need the user either way
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "go")
            await until_approval(pilot)
            assert (workspace / "ALLOWED").exists()
            await pilot.press("escape")
            await until(pilot, lambda: len(server.requests) >= 2, what="the refusal sent")
        contents = [str(m["content"]) for m in server.requests[1]["messages"] if m["role"] == "tool"]
        assert any("deny rule bash:rm" in c for c in contents)
        assert not (workspace / "ASKED").exists()
        assert os.path.exists(workspace / ".claude" / "settings.json")

    async def test_permissions_lists_the_rules_that_ask_and_refuse(self, server, workspace, tmp_path):
        from tests.support.ui_helpers import printed

        claude_project(workspace)
        trust.add(workspace)
        config = make_config(server, tmp_path / "l.db", cwd=workspace)
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/permissions")
            await until(pilot, lambda: "Refused:" in printed(app), what="the listing")
            listing = printed(app)
        assert "bash:touch" in listing and "bash:=touch ASKED" in listing and "bash:rm" in listing


def test_an_always_answer_does_not_trust_claude_allow_rules_added_since(workspace):
    """agent-tui writing an "Always allow" rule keeps the folder trusted, but a `.claude/` allow
    rule added after the folder was trusted still waits for the user to trust it."""
    from agent_tui.policy.allow_rules import add_rule

    path = claude_project(workspace)
    trust.add(workspace)
    changed = json.loads(path.read_text())
    changed["permissions"]["allow"].append("Bash(curl:*)")
    path.write_text(json.dumps(changed))
    add_rule("bash:make", workspace)  # the TUI's "Always" answer
    assert trust.state(workspace) == "trusted"
    rules = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS).config.provenance.extra_rules
    assert all(kind != "allow" for kind, _r, _t in rules)
