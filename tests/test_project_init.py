"""/init writes an AGENTS.md skeleton read off the tree, which the next request then carries."""

from __future__ import annotations

import pytest

from agent_tui.agent.project_init import AlreadyExists, write_agents_md
from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config


class TestInit:
    def test_skeleton_names_commands_and_layout(self, workspace):
        (workspace / "pyproject.toml").write_text("[project]\nname='x'\n")
        (workspace / "src").mkdir()
        path = write_agents_md(workspace)
        text = path.read_text()
        assert "Python" in text and "python -m pytest" in text and "`src/`" in text
        with pytest.raises(AlreadyExists):
            write_agents_md(workspace)

    def test_existing_claude_md_is_respected(self, workspace):
        (workspace / "CLAUDE.md").write_text("rules")
        with pytest.raises(AlreadyExists, match="CLAUDE.md"):
            write_agents_md(workspace)

    async def test_the_prompt_builder_loads_it(self, server, workspace, tmp_path):
        services = await build_services(make_config(server, tmp_path / "i.db"), workspace=workspace)
        try:
            session = await services.new_session()
            write_agents_md(workspace)
            session.prompts.reload_rules()
            server.enqueue(Reply(text="ok"))
            await collect(session.run_turn("hi"))
            assert "AGENTS.md — what an agent should know" in server.requests[0]["messages"][0]["content"]
        finally:
            await services.close()
