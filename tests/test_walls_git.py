"""The whole of `.git` is a protected path for the file tools: no allow rule, session grant or
redirect (`core.hooksPath`, a `.git` file, `commondir`) lets a write there pass unasked."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.tools.files import EditFileTool, WriteFileTool
from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest, PermissionPolicy
from agent_tui.tools.protected import protected_reason


async def check(policy, *call):
    """The policy's verdict as (allowed, detail), what these tests assert on."""
    verdict = await policy.decide(*call)
    return verdict.allowed, verdict.detail


WRITE = WriteFileTool.spec


class Always:
    """An approver that allows for the session every time and counts the questions."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return ApprovalDecision("allow_session")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git" / "objects" / "ab").mkdir(parents=True)
    (root / ".git" / "info").mkdir()
    (root / ".git" / "config").write_text("[core]\n\tbare = false\n")
    return root.resolve()


INSIDE_GIT = [
    ".git/commondir",
    ".git/info/exclude",
    ".git/info/attributes",
    ".git/objects/ab/cdef",
    ".git/HEAD",
    ".git/packed-refs",
    ".git/refs/heads/main",
    ".git/modules/sub/config",
    ".git",
    "sub/.git/config",
    ".GIT/config",
]


@pytest.mark.parametrize("path", INSIDE_GIT)
async def test_every_write_into_git_asks_each_time(repo, path):
    """wall: protected paths — a write anywhere in .git asks every time despite the allow rule."""
    approver = Always()
    policy = PermissionPolicy(["write_file", "edit_file"], approver, words=SHIPPED_WORDS)
    for _ in range(2):
        allowed, _why = await check(policy, "write_file", {"path": path, "content": "x"}, WRITE, repo)
        assert allowed
    assert len(approver.requests) == 2 and approver.requests[0].preview.startswith("PROTECTED")


async def test_headless_write_to_commondir_is_refused(repo):
    """wall: protected paths — the .git/commondir plant is refused headless with only write_file allowed."""
    policy = PermissionPolicy(["write_file"], words=SHIPPED_WORDS)
    args = {"path": ".git/commondir", "content": "../build/cache\n"}
    allowed, why = await check(policy, "write_file", args, WRITE, repo)
    assert not allowed and "protected" in why
    assert not (repo / ".git" / "commondir").exists()


def test_hooks_path_target_is_protected(repo):
    """wall: protected paths — the folder core.hooksPath names is as protected as .git/hooks."""
    (repo / ".git" / "config").write_text('[core]\n\thooksPath = "tools/githooks"\n')
    assert protected_reason(repo, "tools/githooks/pre-commit")
    assert protected_reason(repo, "tools/other.py") is None
    (repo / ".git" / "config").write_text("[core]\n  HooksPath=/elsewhere/hooks\n")
    assert protected_reason(repo, "tools/githooks/pre-commit") is None


def test_gitdir_file_and_commondir_targets_are_protected(tmp_path):
    """wall: protected paths — a `.git` file's gitdir and a commondir it names are protected too."""
    root = (tmp_path / "wt").resolve()
    (root / "store" / "real").mkdir(parents=True)
    (root / ".git").write_text("gitdir: store/real\n")
    (root / "store" / "real" / "commondir").write_text("../../build/cache\n")
    (root / "build" / "cache").mkdir(parents=True)
    assert protected_reason(root, "store/real/HEAD")
    assert protected_reason(root, "build/cache/config")
    assert protected_reason(root, "build/other") is None
    assert protected_reason(root, "src/app.py") is None


async def test_edit_into_git_asks_too(repo):
    """wall: protected paths — edit_file is covered like write_file."""
    (repo / ".git" / "info" / "exclude").write_text("a\n")
    approver = Always()
    policy = PermissionPolicy(["edit_file"], approver, words=SHIPPED_WORDS)
    args = {"path": ".git/info/exclude", "old_string": "a", "new_string": "b"}
    assert (await check(policy, "edit_file", args, EditFileTool.spec, repo))[0]
    assert len(approver.requests) == 1
