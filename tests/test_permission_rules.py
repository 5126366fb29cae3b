"""One rule type and one rule set: a rule parses, matches and formats the same wherever it
appears (config check, policy, /permissions, "Always"), each rule keeps the tier it came from,
and the policy's verdict carries a closed reason code."""

from __future__ import annotations

import typing

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.policy.permission_rules import AllowRule, RuleError, RuleSet
from agent_tui.tools.bash import BashTool
from agent_tui.tools.files import EditFileTool, ReadFileTool
from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest, PermissionPolicy
from agent_tui.tools.verdict import VerdictReason


class Answer:
    """An approver answering every question the same way."""

    def __init__(self, decision: ApprovalDecision) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.decision


class TestAllowRule:
    @pytest.mark.parametrize(
        "text",
        [
            "edit_file",
            "bash:git status",
            "bash:pytest*",
            "bash:=make && make install",
            "edit_file:src/*",
            "web_fetch:docs.python.org",
        ],
    )
    def test_format_is_the_parsed_text(self, text):
        """Every rule as written parses to a value that formats back to the same text."""
        assert AllowRule.parse(text, words=SHIPPED_WORDS).format() == text

    def test_spacing_is_normalised(self):
        """Surrounding spaces do not make a different rule (revoking ` bash: ls ` finds `bash:ls`)."""
        assert AllowRule.parse(" bash: ls ", words=SHIPPED_WORDS) == AllowRule.parse(
            "bash:ls", words=SHIPPED_WORDS
        )

    @pytest.mark.parametrize("text", ["git status", "shell:ls", "bash:", "", "task:x", "edit_file:"])
    def test_a_rule_that_never_matches_does_not_parse(self, text):
        """parse refuses, with the same hint the config check gives."""
        with pytest.raises(RuleError) as err:
            AllowRule.parse(text, words=SHIPPED_WORDS)
        assert str(err.value) == AllowRule.problem(text, words=SHIPPED_WORDS)

    def test_matching(self):
        """A tool rule covers the tool; a prefix covers its commands but never a chained one; an
        exact rule covers only that command."""
        assert AllowRule.parse("edit_file", words=SHIPPED_WORDS).matches("edit_file", {"path": "a"})
        assert not AllowRule.parse("edit_file", words=SHIPPED_WORDS).matches("write_file", {"path": "a"})
        prefix = AllowRule.parse("bash:git status", words=SHIPPED_WORDS)
        assert prefix.matches("bash", {"command": "git   status -s"})
        assert not prefix.matches("bash", {"command": "git status; rm -rf /"})
        exact = AllowRule.for_command(None, "make  &&  make install")
        assert exact.format() == "bash:=make && make install"
        assert exact.matches("bash", {"command": "make && make install"})
        assert not exact.matches("bash", {"command": "make && rm -rf /"})


class TestRuleSet:
    def test_config_tiers_match_before_the_session(self):
        """The same rule in two tiers reports the config's tier; removing it clears both."""
        rules = RuleSet()
        rules.add(AllowRule("edit_file"), "session")
        rules.add(AllowRule("edit_file"), "project")
        assert rules.match("edit_file", {}) == (AllowRule("edit_file"), "project")
        assert [tier for _rule, tier in rules.entries()] == ["project", "session"]
        assert rules.remove(AllowRule("edit_file")) and len(rules) == 0

    def test_load_config_records_each_rules_tier(self, isolated_home, tmp_path):
        """A rule from the user file, the project file and the local file each keep their tier."""
        (isolated_home / "config").mkdir(parents=True, exist_ok=True)
        (isolated_home / "config" / "config.toml").write_text('[tools]\nallow = ["bash:ls"]\n')
        (tmp_path / ".agent-tui.toml").write_text('[tools]\nallow = ["bash:ls", "bash:make"]\n')
        (tmp_path / ".agent-tui.local.toml").write_text('[tools]\nallow = ["edit_file"]\n')
        config = load_config(cwd=tmp_path, env={}, trusted=True, rule_words=SHIPPED_WORDS).config
        assert config.allow_tiers() == [
            ("bash:ls", "project"),
            ("bash:make", "project"),
            ("edit_file", "local"),
        ]
        policy = PermissionPolicy(config.allow_tiers(), words=SHIPPED_WORDS)
        assert [(r.format(), t) for r, t in policy.rules.entries()] == [
            ("bash:ls", "project"),
            ("bash:make", "project"),
            ("edit_file", "local"),
        ]


class TestSavedRules:
    def test_a_rule_is_removed_as_listed_whatever_its_spelling_in_the_file(self, tmp_path):
        """/permissions lists a saved ` bash: git status` as `bash:git status`; removing it by
        that name edits the file that holds it."""
        from agent_tui.policy.allow_rules import project_rules, remove_rule

        (tmp_path / ".agent-tui.toml").write_text('[tools]\nallow = [" bash: git status", "edit_file"]\n')
        assert remove_rule("bash:git status", tmp_path, words=SHIPPED_WORDS)
        assert project_rules(tmp_path) == ["edit_file"]


class TestVerdict:
    async def _decide(self, policy, tool, args, tmp_path):
        spec = {"bash": BashTool.spec, "edit_file": EditFileTool.spec, "read_file": ReadFileTool.spec}[tool]
        return await policy.decide(tool, args, spec, tmp_path)

    @pytest.mark.parametrize(
        ("rules", "answer", "yes", "tool", "args", "allowed", "reason"),
        [
            ((), "deny", False, "read_file", {"path": "a"}, True, "read_only"),
            (("bash:ls",), "deny", False, "bash", {"command": "ls -la"}, True, "rule"),
            ((), "deny", True, "bash", {"command": "rm x"}, True, "yes_flag"),
            ((), "allow_once", False, "bash", {"command": "rm x"}, True, "asked_once"),
            ((), "allow_session", False, "edit_file", {"path": "a"}, True, "asked_session"),
            ((), "deny", False, "bash", {"command": "rm x"}, False, "denied_by_user"),
            ((), "deny", False, "edit_file", {"path": ".agent-tui.toml"}, False, "protected_denied"),
            ((), "allow_once", False, "edit_file", {"path": ".agent-tui.toml"}, True, "protected_allowed"),
        ],
    )
    async def test_each_path_has_its_code(self, tmp_path, rules, answer, yes, tool, args, allowed, reason):
        """What decided a call is a closed code, whatever the words of its detail."""
        policy = PermissionPolicy(rules, Answer(ApprovalDecision(answer)), yes=yes, words=SHIPPED_WORDS)
        verdict = await self._decide(policy, tool, args, tmp_path)
        assert (verdict.allowed, verdict.reason) == (allowed, reason)
        assert reason in typing.get_args(VerdictReason)

    async def test_a_hint_is_its_own_code(self, tmp_path):
        """The headless refusal (a deny with a hint for the model) is told apart by code."""
        verdict = await self._decide(
            PermissionPolicy(words=SHIPPED_WORDS), "bash", {"command": "rm x"}, tmp_path
        )
        assert (verdict.allowed, verdict.reason) == (False, "denied_with_hint")

    async def test_the_protected_question_is_flagged(self, tmp_path):
        """The approver learns a path is protected from a field, not from the preview's words."""
        approver = Answer(ApprovalDecision("allow_once"))
        await self._decide(
            PermissionPolicy(["edit_file"], approver, words=SHIPPED_WORDS),
            "edit_file",
            {"path": ".agent-tui.toml"},
            tmp_path,
        )
        assert [request.protected for request in approver.asked] == [True]
