"""Hooks and their one place to be seen, in the real app (Pilot) and `config show`: a blocking
hook's run is a line in the chat with its reason, `/hooks` lists hooks, commands and skills with
their files, the untrusted folder's trust question names each hook's command."""

from __future__ import annotations

import json

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.frontends.tui import slash
from agent_tui.frontends.tui.widgets.chat_items import NoticeItem
from agent_tui.policy import trust
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.cli import run_cli as cli
from tests.support.hooks import NO_RM, claude_settings, group, script, user_config
from tests.support.skills import write_skill
from tests.support.ui_helpers import make_app, printed, until, until_armed
from tests.support.ui_session_fixtures import send


def notice_texts(app) -> list[str]:
    return [n.entry.text for n in app.query(NoticeItem)]


class TestTui:
    async def test_blocked_call_is_a_chat_line_and_hooks_lists_everything(self, server, workspace, tmp_path):
        """The refused rm shows as `hook PreToolUse … blocked: <reason>` in the chat; /hooks
        lists the hook with its file, the custom command and the skill."""
        claude_settings(workspace, {"PreToolUse": [group("Bash", script(workspace, "no-rm.sh", NO_RM))]})
        (workspace / ".claude" / "commands").mkdir()
        (workspace / ".claude" / "commands" / "review.md").write_text(
            "---\ndescription: review it\n---\nReview.\n"
        )
        write_skill(workspace / ".claude" / "skills")
        (workspace / "keep.txt").write_text("x\n")
        trust.add(workspace)
        config = make_config(server, tmp_path / "t.db", cwd=workspace, tools={"allow": ["bash"]})
        server.enqueue(Reply(tool_calls=[("bash", {"command": "rm keep.txt"})]), Reply(text="could not"))
        app = make_app(config, workspace)
        try:
            async with app.run_test(size=(120, 36)) as pilot:
                await until(pilot, lambda: app.view.session is not None, what="the session")
                await send(pilot, "clean up")
                assert (workspace / "keep.txt").exists()
                lines = [t for t in notice_texts(app) if t.startswith("hook PreToolUse")]
                assert len(lines) == 1 and "exit 2" in lines[0]
                assert lines[0].endswith("blocked: rm is not allowed in this repo")
                await send(pilot, "/hooks")  # a command's block, like every command's output
                await until(pilot, lambda: "/hooks\nHooks:" in printed(app), what="the /hooks block")
                block = printed(app).split("/hooks\n", 1)[1]
                assert block.startswith("Hooks:\n  PreToolUse [Bash]: ")
                assert "no-rm.sh" in block and ".claude/settings.json" in block
                assert "/review: review it" in block and "review.md" in block
                assert "db-migrations: Reviewing database migrations" in block and "SKILL.md" in block
        finally:
            slash.set_custom([])

    async def test_a_pre_tool_use_line_stands_above_the_call_it_checked(self, server, workspace, tmp_path):
        """Issue 43 low 13: the hook runs before the tool, so its line comes before the tool line
        (it came after: the hook's event reaches the chat once the call is already on screen)."""
        from agent_tui.frontends.tui.widgets.chat_items import ToolLine

        claude_settings(workspace, {"PreToolUse": [group("Bash", script(workspace, "no-rm.sh", NO_RM))]})
        (workspace / "keep.txt").write_text("x\n")
        trust.add(workspace)
        config = make_config(server, tmp_path / "o.db", cwd=workspace, tools={"allow": ["bash"]})
        server.enqueue(Reply(tool_calls=[("bash", {"command": "rm keep.txt"})]), Reply(text="could not"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view.session is not None, what="the session")
            await send(pilot, "clean up")
            await until(pilot, lambda: not app.view.busy, what="the turn")
            order = [
                "hook" if isinstance(i, NoticeItem) and i.entry.text.startswith("hook PreToolUse") else "tool"
                for i in app.view.chat.children
                if isinstance(i, ToolLine) or (isinstance(i, NoticeItem) and i.entry.text.startswith("hook "))
            ]
        assert order == ["hook", "tool"]


class TestTrustAndConfig:
    def test_untrusted_folder_lists_each_claude_hook_for_the_trust_question(self, workspace):
        """What the trust dialog lists (LoadedConfig.ignored) names every .claude hook's command."""
        claude_settings(workspace, {"Stop": [group(None, "./check-tests.sh")]})
        loaded = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
        assert loaded.ignored == (".claude/settings.json Stop hook (runs ./check-tests.sh)",)
        assert not loaded.config.provenance.folder_trusted

    def test_config_show_names_where_each_extension_came_from(self, server, workspace, tmp_path):
        """`config show` lists hooks (from both files), commands and skills with their files."""
        user_config(server, tmp_path / "c.db")
        (workspace / ".agent-tui.toml").write_text('[[hooks.PostToolUse]]\ncommand = "fmt.sh"\n')
        (workspace / ".claude").mkdir()
        (workspace / ".claude" / "settings.json").write_text(
            json.dumps({"hooks": {"PreToolUse": [group("Bash", "no-rm.sh")]}})
        )
        trust.add(workspace)
        out = cli(["config", "show"], workspace)
        assert out.returncode == 0, out.stderr
        assert "#   PostToolUse: fmt.sh  (timeout 60 s; " in out.stdout and ".agent-tui.toml)" in out.stdout
        assert "#   PreToolUse [Bash]: no-rm.sh  (timeout 60 s; " in out.stdout

    def test_untrusted_agent_tui_toml_hooks_are_named_with_their_commands(self, workspace):
        """`[[hooks.*]]` in an untrusted .agent-tui.toml is left out and named with its command."""
        (workspace / ".agent-tui.toml").write_text('[[hooks.PreToolUse]]\ncommand = "guard.sh"\n')
        loaded = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
        assert loaded.ignored == ("[[hooks.PreToolUse]] (runs guard.sh)",)


class TestContextScreen:
    async def test_a_loaded_skill_is_named_in_context(self, server, workspace, tmp_path):
        """/context names the skills loaded in the session under memories + skills."""
        from agent_tui.core.context_report import build_report
        from agent_tui.frontends.tui.screens.context_screen import footer_lines

        write_skill(workspace / ".claude" / "skills")
        trust.add(workspace)
        config = make_config(server, tmp_path / "x.db", cwd=workspace)
        from agent_tui.compose.factory import build_services

        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            before = session.measure()
            session.prompts.activate_skill("db-migrations")
            after = session.measure()
            assert after.skill_prompts > before.skill_prompts + 500
            text = footer_lines(build_report(session, after)).plain
            assert "Skills loaded (in memories + skills; kept through compaction): db-migrations" in text
        finally:
            await services.close()


class TestTrustQuestion:
    async def test_the_trust_question_lists_claude_hooks_and_trusting_runs_them(
        self, server, workspace, tmp_path
    ):
        """A folder with only .claude/settings.json hooks asks first, listing each command;
        `t` trusts it and the hook runs on the first prompt."""
        from agent_tui.frontends.cli.tui import trusting_services
        from agent_tui.frontends.tui.app import AgentApp
        from agent_tui.frontends.tui.screens.trust import TrustScreen

        user_config(server, tmp_path / "q.db")
        marker = workspace / "prompted.txt"
        claude_settings(workspace, {"UserPromptSubmit": [group(None, f"touch {marker}")]})
        loaded = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
        app = AgentApp(trusting_services(lambda: app, loaded, workspace=workspace), workspace=workspace)
        server.enqueue(Reply(text="hi"))
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TrustScreen), what="the trust question")
            assert app.screen.enables == (
                f".claude/settings.json UserPromptSubmit hook (runs touch {marker})",
            )
            await until_armed(pilot)
            await pilot.press("1", "enter")
            await until(pilot, lambda: app.view.session is not None, what="the session")
            await send(pilot, "hello")
        assert marker.exists()
        assert trust.is_trusted(workspace)
