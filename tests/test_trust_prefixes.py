"""Approvals decided by our rules: session prefixes never end at a runner, interpreter or
installer (every entry of prefixes.py's lists is checked); protected paths are asked about every
time whatever rule or grant exists. The approver here is the user's answers, scripted."""

from __future__ import annotations

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.runtime import paths
from agent_tui.tools.files import EditFileTool, WriteFileTool
from agent_tui.tools.permissions import (
    ApprovalDecision,
    ApprovalRequest,
    PermissionPolicy,
    bash_prefix_matches,
)
from agent_tui.tools.prefixes import NEVER, RUNNERS, suggest_prefix
from agent_tui.tools.protected import protected_reason


async def check(policy, *call):
    """The policy's verdict as (allowed, detail), what these tests assert on."""
    verdict = await policy.decide(*call)
    return verdict.allowed, verdict.detail


class Answers:
    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return self.answers.pop(0)


class TestPrefixes:
    @pytest.mark.parametrize(
        ("command", "prefix"),
        [
            ("uv run pytest -x", "uv run pytest"),
            ("uv run python -c 'import os'", None),
            ("poetry run pytest", "poetry run pytest"),
            ("npx eslint .", "npx eslint"),
            ("bunx tsc", "bunx tsc"),
            ("pipx run black .", "pipx run black"),
            ("python -m pytest -q", "python -m pytest"),
            ("python -m pip install x", None),
            ("uv run python -m pytest", "uv run python -m pytest"),
            ("docker run --rm alpine ls", None),
            ("docker exec box ls", None),
            ("docker ps", "docker ps"),
            ("pip install requests", None),
            ("npm install left-pad", None),
            ("npm test", "npm test"),
            ("go run ./cmd/x", None),
            ("go test ./...", "go test"),
            ("bundle exec rspec", "bundle exec rspec"),
            ("make test", None),
            ("env FOO=1 ls", None),
            ("xargs rm", None),
            ("sh -c 'ls'", None),
            ("bash -c 'ls'", None),
            ("uv run", None),
            ("npx", None),
            ("npx -y something", None),
        ],
    )
    def test_issue_examples(self, command, prefix):
        assert suggest_prefix(command) == prefix

    def test_uv_run_pytest_never_allows_uv_run_python(self):
        prefix = suggest_prefix("uv run pytest")
        assert prefix == "uv run pytest"
        assert not bash_prefix_matches(prefix, "uv run python -c \"import os; os.system('id')\"")

    @pytest.mark.parametrize("entry", NEVER)
    def test_never_entries_get_no_prefix(self, entry):
        assert suggest_prefix(f"{entry} something else") is None

    @pytest.mark.parametrize("runner", RUNNERS)
    def test_runners_name_what_they_run(self, runner):
        assert suggest_prefix(f"{runner} pytest -x") == f"{runner} pytest"
        assert suggest_prefix(f"{runner} python -c x") is None
        assert suggest_prefix(f"{runner} bash -c x") is None
        assert suggest_prefix(runner) is None


class TestProtectedPaths:
    @pytest.mark.parametrize(
        "path",
        [".agent-tui.toml", ".git/config", ".git/hooks/pre-commit", "AGENTS.md", "sub/CLAUDE.md", "agent.md"],
    )
    def test_protected(self, tmp_path, path):
        assert protected_reason(tmp_path, path)

    @pytest.mark.parametrize("path", ["notes.txt", "git/HEAD_notes", "src/config", ".gitignore", ".github/x"])
    def test_not_protected(self, tmp_path, path):
        assert protected_reason(tmp_path, path) is None

    def test_a_symlink_to_git_config_is_protected(self, tmp_path):
        (tmp_path / ".git").mkdir()
        (tmp_path / ".git" / "config").write_text("")
        (tmp_path / "innocent").symlink_to(tmp_path / ".git" / "config")
        assert protected_reason(tmp_path, "innocent").startswith("git runs what it says")

    def test_the_config_dir_inside_the_workspace(self, tmp_path, monkeypatch):
        monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))
        assert (
            protected_reason(tmp_path, "home/config/config.toml") == "it is in your agent-tui config folder"
        )

    async def test_no_rule_or_session_grant_covers_them(self, tmp_path):
        """`write_file` allowed by rule and for the session: a protected path still asks, each
        time; an "always" answer allows that one call and writes no rule."""
        answers = Answers(
            ApprovalDecision("allow_session"),
            ApprovalDecision("allow_always"),
            ApprovalDecision("deny"),
        )
        policy = PermissionPolicy(["write_file", "edit_file"], approver=answers, words=SHIPPED_WORDS)
        args = {"path": ".git/config", "content": "x"}
        assert (await check(policy, "write_file", args, WriteFileTool.spec, tmp_path))[0]
        assert (await check(policy, "write_file", args, WriteFileTool.spec, tmp_path))[0]
        allowed, message = await check(
            policy, "edit_file", {"path": "AGENTS.md"}, EditFileTool.spec, tmp_path
        )
        assert not allowed and "protected" in message
        assert len(answers.requests) == 3 and "PROTECTED" in answers.requests[0].preview
        assert not (tmp_path / ".agent-tui.toml").exists()
        assert (await check(policy, "write_file", {"path": "x.txt"}, WriteFileTool.spec, tmp_path))[0]
        assert len(answers.requests) == 3

    async def test_yes_covers_them(self, tmp_path):
        policy = PermissionPolicy(yes=True, words=SHIPPED_WORDS)
        allowed, reason = await check(
            policy, "write_file", {"path": ".git/hooks/x"}, WriteFileTool.spec, tmp_path
        )
        assert allowed and "--yes" in reason
