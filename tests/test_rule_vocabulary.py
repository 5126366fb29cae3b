"""Permission rules speak the words the tools declare (issue 39): Claude Code's rule names, which
tools take a path glob and which a domain come from each tool's declaration, not from a table in
policy/. A throwaway tool's declared Claude name, path argument or fetch kind reaches rule parsing,
the config check and the hints; and a config whose rules name no tool never loads one."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.agent import web_search
from agent_tui.base.tool_decl import Capabilities
from agent_tui.compose.rule_words import SHIPPED_WORDS, shipped_declarations
from agent_tui.config import ConfigError, load_config
from agent_tui.policy.claude_rules import format_claude, rule_syntax
from agent_tui.policy.permission_rules import AllowRule, RuleError
from agent_tui.policy.rule_vocabulary import RuleVocabulary
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.permissions import PermissionPolicy
from tests.support.builtin_tools import every_builtin
from tests.support.throwaway_tools import StampTool

BEFORE = {
    "Bash": ("bash",),
    "Read": ("read_file", "grep", "glob", "list_dir"),
    "Edit": ("edit_file", "write_file"),
    "MultiEdit": ("edit_file",),
    "Write": ("write_file",),
    "Grep": ("grep",),
    "Glob": ("glob",),
    "LS": ("list_dir",),
    "WebFetch": ("web_fetch",),
    "WebSearch": ("web_search",),
    "Task": ("task",),
    "TodoWrite": ("todo",),
}
"""The table policy/claude_rules.py spelled by hand until the declarations replaced it."""


class PeekUrlTool:
    """Fetches a page: a fetching tool nothing in agent-tui has heard of."""

    spec = ToolSpec(
        name="peek_url",
        description="Fetch `url`.",
        parameters={"type": "object", "properties": {"url": {"type": "string"}}},
        capabilities=Capabilities(kind="fetch", claude_names=("Peek",)),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text="peeked")


def with_tools(*tools: Any) -> RuleVocabulary:
    """The vocabulary agent-tui's tools give, plus these throwaways'."""
    extra = [(tool.spec.name, tool.spec.capabilities) for tool in tools]
    return RuleVocabulary.of([*shipped_declarations(), *extra])


class TestShippedWords:
    def test_the_shipped_words_are_the_old_table(self):
        """Derived from the declarations, the rule names cover what the hand-written table did."""
        assert SHIPPED_WORDS.claude_tools == BEFORE
        assert SHIPPED_WORDS.path_tools == {
            "read_file",
            "grep",
            "glob",
            "list_dir",
            "edit_file",
            "write_file",
        }
        assert SHIPPED_WORDS.domain_tools == {"web_fetch"}

    def test_every_shipped_tool_and_the_provider_search_is_read(self):
        """The vocabulary reads every tool agent-tui ships (whoever registers it) and the
        provider's own search, which has no spec but declares its Claude name."""
        shipped = {tool.spec.name: tool.spec.capabilities for tool in every_builtin()}
        shipped[web_search.NAME] = web_search.CAPABILITIES
        del shipped["skill"]  # built per session from the user's skills; declares no rule word
        assert dict(shipped_declarations()) == shipped

    def test_hints_and_listings_read_the_declarations(self):
        """A hint and /tools spell each tool by the first Claude name it leads."""
        assert format_claude("grep", SHIPPED_WORDS) == "Grep"
        assert format_claude("write_file", SHIPPED_WORDS) == "Write"
        assert rule_syntax("edit_file", SHIPPED_WORDS) == "edit_file:GLOB · Edit(GLOB)"
        assert rule_syntax("web_fetch", SHIPPED_WORDS) == "web_fetch:HOST · WebFetch(domain:HOST)"


class TestAThrowawayToolsWords:
    def test_its_claude_name_and_path_argument_make_a_path_rule(self):
        """`Stamp(src/**)` is `stamp_file:src/**`, a path rule, and `Edit(...)` covers the
        checkpointed throwaway too: nothing but its declaration names it."""
        words = with_tools(StampTool())
        assert [rule.format() for rule in AllowRule.parse_all("Stamp(src/**)", words)] == [
            "stamp_file:src/**"
        ]
        assert AllowRule.parse_all("Stamp(src/**)", words) == (AllowRule("stamp_file", path="src/**"),)
        assert "stamp_file" in words.path_tools
        assert AllowRule.parse("stamp_file:src/**", words) == AllowRule("stamp_file", path="src/**")
        assert AllowRule("stamp_file", path="src/**") in AllowRule.parse_all("Edit(src/**)", words)
        assert format_claude("stamp_file", words) == "Stamp"
        assert rule_syntax("stamp_file", words) == "stamp_file:GLOB · Stamp(GLOB)"

    def test_the_approval_policy_matches_its_path_rule(self, tmp_path):
        """The policy the composition root builds reads rules in the words it is handed: the
        throwaway's Claude rule allows its calls under the glob and nowhere else."""
        policy = PermissionPolicy(["Stamp(src/**)"], words=with_tools(StampTool()))
        assert policy.rule_for("stamp_file", {"path": "src/a.py"}, tmp_path) == "stamp_file:src/**"
        assert policy.rule_for("stamp_file", {"path": "docs/a.md"}, tmp_path) is None

    def test_a_fetching_tool_takes_a_domain(self):
        """A tool of the fetch kind takes `domain:HOST` in Claude's syntax and a host in ours."""
        words = with_tools(PeekUrlTool())
        assert AllowRule.parse_all("Peek(domain:Example.com)", words) == (
            AllowRule("peek_url", domain="example.com"),
        )
        with pytest.raises(RuleError, match=r'Peek takes "domain:HOST"'):
            AllowRule.parse_all("Peek(src/**)", words)

    def test_without_its_declaration_the_name_is_unknown(self):
        """The shipped words do not know the throwaway: the same rule is refused, naming the
        names there are."""
        with pytest.raises(RuleError, match=r"'Stamp' is not a Claude Code tool agent-tui has \(known: "):
            AllowRule.parse_all("Stamp(src/**)", SHIPPED_WORDS)
        assert AllowRule.problem("stamp_file:src/**", SHIPPED_WORDS) is not None

    def test_the_config_check_reads_the_words_it_is_given(self, isolated_home, tmp_path):
        """The config's rule check takes the vocabulary its caller hands it."""
        (isolated_home / "config").mkdir(parents=True, exist_ok=True)
        (isolated_home / "config" / "config.toml").write_text('[tools]\nallow = ["Stamp(src/**)"]\n')
        loaded = load_config(cwd=tmp_path, env={}, rule_words=with_tools(StampTool()))
        assert loaded.config.tools.allow == ["Stamp(src/**)"]
        with pytest.raises(ConfigError, match="'Stamp' is not a Claude Code tool"):
            load_config(cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS)


class TestReadOnlyWhenNeeded:
    """Config commands load no tool module: the declarations are read only for a rule that needs
    a word (a path, a domain, a Claude name)."""

    def test_rules_naming_no_word_leave_the_declarations_unread(self, isolated_home, tmp_path):
        asked: list[int] = []

        def source() -> list[tuple[str, Capabilities]]:
            asked.append(1)
            return shipped_declarations()

        (isolated_home / "config").mkdir(parents=True, exist_ok=True)
        config = isolated_home / "config" / "config.toml"
        config.write_text('[tools]\nallow = ["bash:git status", "edit_file", "mcp__time__*"]\n')
        load_config(cwd=tmp_path, env={}, rule_words=RuleVocabulary(source))
        assert asked == []
        config.write_text('[tools]\nallow = ["Edit(src/**)", "read_file:docs/**"]\n')
        words = RuleVocabulary(source)
        load_config(cwd=tmp_path, env={}, rule_words=words)
        load_config(cwd=tmp_path, env={}, rule_words=words)
        assert asked == [1]  # read once, then held
