"""A tool-name rule may end in `*` and may spell an MCP tool the Claude Code way
(`mcp__server__tool`): `mcp__time__*` in `[tools] allow` lets the time server's tools run unasked.
The config check always accepted such rules; the policy compared names exactly, so they never
matched."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.policy.permission_rules import AllowRule
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.mcp import installed

TIME = "time__get_current_time"


class TestMatching:
    @pytest.mark.parametrize(
        ("rule", "tool", "matches"),
        [
            ("mcp__time__*", TIME, True),
            ("mcp__time__*", "time__convert_time", True),
            ("mcp__time__get_current_time", TIME, True),
            ("time__*", TIME, True),
            ("mcp__*", TIME, True),
            ("mcp__time__*", "timer__get", False),
            ("mcp__time__*", "git__git_log", False),
            ("mcp__time__*", "edit_file", False),
            ("time__*", "mcp_time__x", False),
            ("edit_*", "edit_file", True),
            ("edit_*", "write_file", False),
            ("edit_file", "edit_file", True),
            ("edit_file", "edit_files", False),
        ],
    )
    def test_a_tool_rule_matches_by_name_glob_and_mcp_spelling(self, rule, tool, matches):
        """A trailing `*` globs the tool name; `mcp__` names the same MCP tool as our `server__tool`."""
        assert AllowRule.parse(rule, words=SHIPPED_WORDS).matches(tool, {}) is matches


class TestWithARealServer:
    async def test_an_mcp_glob_rule_lets_the_servers_tools_run_unasked(self, tmp_path, workspace):
        """With `allow = ["mcp__time__*"]` and no --yes, the model's call to the time server runs;
        without the rule the same call is denied."""
        table = {"time": {"command": installed("mcp-server-time"), "args": ["--local-timezone", "UTC"]}}
        for allow, ran in ((["mcp__time__*"], True), ([], False)):
            with FakeOpenAI(window=64_000) as server:
                config = make_config(
                    server,
                    tmp_path / f"r{len(allow)}.db",
                    window=64_000,
                    mcp={"servers": table, "startup_timeout": 120},
                    tools={"allow": allow},
                )
                services = await build_services(config, workspace=workspace)
                try:
                    await services.mcp_ready()
                    server.enqueue(
                        Reply(tool_calls=[(TIME, {"timezone": "Asia/Tokyo"})]), Reply(text="it is late")
                    )
                    session = await services.new_session()
                    events = await collect(session.run_turn("what time is it in Tokyo?"))
                finally:
                    await services.close()
            (done,) = of_type(events, ev.ToolCallFinished)
            assert done.call.name == TIME
            if ran:
                assert not done.is_error and "Asia/Tokyo" in done.view, done.view
            else:
                assert done.is_error and done.summary == "denied"
