"""'Always allow' writes a rule to the project's .agent-tui.toml, honoured by the next run."""

from __future__ import annotations

import tomllib

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.policy.allow_rules import add_rule, project_rules, remove_rule
from agent_tui.tools.permissions import ApprovalDecision
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type


class TestRulesFile:
    def test_add_keeps_comments_and_other_settings(self, tmp_path):
        """A rule goes to the git-ignored local file, whose comments and other settings stay; the
        shared .agent-tui.toml is not touched."""
        shared = tmp_path / ".agent-tui.toml"
        shared.write_text('[model]\nname = "shared"\n')
        cfg = tmp_path / ".agent-tui.local.toml"
        cfg.write_text(
            '# my project\n[model]\nname = "x"  # chosen\n\n[tools]\n'
            'bash_timeout = 30.0\nallow = ["edit_file"]\n\n[ui]\ntheme = "agent-light"\n'
        )
        add_rule("bash:git status", tmp_path)
        text = cfg.read_text()
        assert "# my project" in text and "# chosen" in text
        data = tomllib.loads(text)
        assert data["tools"] == {"bash_timeout": 30.0, "allow": ["edit_file", "bash:git status"]}
        assert data["ui"]["theme"] == "agent-light"
        assert shared.read_text() == '[model]\nname = "shared"\n'

    def test_add_to_a_file_without_tools_then_remove(self, tmp_path):
        (tmp_path / ".agent-tui.toml").write_text('[model]\nname = "x"\n')
        add_rule("bash:pytest*", tmp_path)
        add_rule("bash:pytest*", tmp_path)
        assert project_rules(tmp_path) == ["bash:pytest*"]
        assert remove_rule("bash:pytest*", tmp_path, words=SHIPPED_WORDS) and project_rules(tmp_path) == []
        assert not remove_rule("nope", tmp_path, words=SHIPPED_WORDS)


class TestAlwaysAllow:
    async def test_rule_written_and_honoured_on_the_next_run(self, server, workspace, tmp_path):
        """The first run asks once and writes the rule; a fresh run allows without asking."""
        asked = []

        async def approver(request):
            asked.append(request)
            return ApprovalDecision("allow_always", prefix="echo")

        def config():
            return make_config(server, tmp_path / "r.db", cwd=workspace)

        services = await build_services(config(), workspace=workspace)
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo hi"})]), Reply(text="ok"))
        session = await services.new_session(approver)
        await collect(session.run_turn("say hi"))
        await services.close()
        assert len(asked) == 1
        assert project_rules(workspace) == ["bash:echo"]

        services = await build_services(config(), workspace=workspace)
        try:

            async def refuse(request):
                raise AssertionError("asked again")

            server.enqueue(Reply(tool_calls=[("bash", {"command": "echo again"})]), Reply(text="ok"))
            session = await services.new_session(refuse)
            events = await collect(session.run_turn("again"))
            assert not of_type(events, ev.ToolCallFinished)[0].is_error
        finally:
            await services.close()
