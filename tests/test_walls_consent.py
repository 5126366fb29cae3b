"""Round three of the walls: consent is never an accident. An "Always allow" answer writes one
rule and changes nothing else about the folder — not its trust, not its hooks, commands or
skills (issue 40, finding 1)."""

from __future__ import annotations

import json

from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.policy import trust
from agent_tui.policy.allow_rules import add_rule, remove_rule
from agent_tui.tools.permissions import ApprovalDecision
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.extend import cli, write, write_user_config


def _hooked_folder(workspace, marker):
    """An untrusted clone whose `.claude/settings.json` has a SessionStart hook."""
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
    write(workspace / ".claude/settings.json", json.dumps(hooks))


class TestAlwaysAllowNeverTrusts:
    async def test_always_on_a_write_leaves_the_folder_untrusted_and_its_hook_unrun(
        self, server, workspace, tmp_path
    ):
        """The finding: *Always* to a harmless write_file in a folder never trusted made
        `trust list` say trusted and the next plain `run` ran the repository's hook."""
        marker = tmp_path / "HOOK-RAN"
        _hooked_folder(workspace, marker)
        write_user_config(server, tmp_path / "r.db")

        async def always(request):
            return ApprovalDecision("allow_always")

        services = await build_services(
            make_config(server, tmp_path / "r.db", cwd=workspace), workspace=workspace
        )
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "a.txt", "content": "x\n"})]), Reply(text="ok")
        )
        session = await services.new_session(always)
        await collect(session.run_turn("write it"))
        await services.close()
        assert (workspace / "a.txt").read_text() == "x\n"
        assert trust.state(workspace) == "untrusted"
        assert trust.listing() == []

        server.enqueue(Reply(text="hello"))
        out = cli(["run", "hi"], workspace)
        assert out.returncode == 0, out.stderr
        assert not marker.exists(), "the repository's SessionStart hook ran"
        assert "is not trusted" in out.stderr

    def test_the_rule_still_applies_in_the_untrusted_folder_but_a_planted_one_does_not(self, workspace):
        """The user's own answer holds on the next run; a rule the repository wrote into its
        local file beside it waits for trust, and is named in the notice."""
        (workspace / ".agent-tui.local.toml").write_text('[tools]\nallow = ["bash:curl"]\n')
        add_rule("write_file", workspace)
        assert trust.state(workspace) == "untrusted"
        loaded = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
        assert "write_file" in loaded.config.tools.allow
        assert "bash:curl" not in loaded.config.tools.allow
        assert any("[tools] allow" in n for n in loaded.notices)
        assert remove_rule("write_file", workspace, words=SHIPPED_WORDS)
        assert (
            "write_file"
            not in load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS).config.tools.allow
        )

    def test_a_trusted_folder_stays_trusted_after_the_rule(self, workspace):
        write(workspace / ".claude/settings.json", "{}")
        trust.add(workspace)
        add_rule("write_file", workspace)
        assert trust.state(workspace) == "trusted"

    def test_a_changed_folder_stays_changed(self, workspace):
        """Trusted, then its hooks changed: the rule must not re-trust the new hooks."""
        settings = write(workspace / ".claude/settings.json", "{}")
        trust.add(workspace)
        settings.write_text('{"hooks": {}}')
        add_rule("write_file", workspace)
        assert trust.state(workspace) == "changed"


class TestAlwaysFromTheEditor:
    async def test_acp_allow_always_leaves_the_folder_untrusted(self, server, workspace, tmp_path):
        """The finding's ACP path: the editor's `allow_always` on a harmless write."""
        import asyncio

        from acp import text_block

        from tests.support.acp_client import WAIT, open_agent

        marker = tmp_path / "HOOK-RAN"
        _hooked_folder(workspace, marker)
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "a.txt", "content": "x\n"})]), Reply(text="ok")
        )
        async with open_agent(server, tmp_path / "acp.db", workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_always"]
            await asyncio.wait_for(conn.prompt(session_id=new.session_id, prompt=[text_block("write")]), WAIT)
        assert (workspace / "a.txt").read_text() == "x\n"
        assert trust.state(workspace) == "untrusted"
        assert not marker.exists()
