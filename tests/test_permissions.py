"""The permission policy: which calls need asking, rule matching (chaining never slips through),
session approvals, and the messages the model gets on denial."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.tools.bash import BashTool
from agent_tui.tools.files import EditFileTool, ReadFileTool, WriteFileTool
from agent_tui.tools.permissions import (
    HEADLESS_HINT,
    ApprovalDecision,
    ApprovalRequest,
    PermissionPolicy,
    Verdict,
    bash_prefix_matches,
    headless_approver,
    suggest_prefix,
)


async def check(policy, *call):
    """The policy's verdict as (allowed, detail), what these tests assert on."""
    verdict = await policy.decide(*call)
    return verdict.allowed, verdict.detail


BASH = BashTool.spec
EDIT = EditFileTool.spec


class Recorder:
    """An approver that answers from a script and records what it was asked."""

    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return self.answers.pop(0)


def bash(command: str) -> dict:
    return {"command": command}


class TestPrefixRules:
    @pytest.mark.parametrize(
        ("prefix", "command", "allowed"),
        [
            ("git status", "git status", True),
            ("git status", "git status -s", True),
            ("git status", "  git   status  -s ", True),
            ("git status", "git statusx", False),
            ("git status", "git", False),
            ("git status", "git status; rm -rf /", False),
            ("git status", "git status && rm -rf /", False),
            ("git status", "git status || rm -rf /", False),
            ("git status", "git status | sh", False),
            ("git status", "git status & rm -rf /", False),
            ("git status", "git status `rm -rf /`", False),
            ("git status", "git status $(rm -rf /)", False),
            ("git status", "git status > /etc/passwd", False),
            ("git status", "git status < <(rm -rf /)", False),
            ("git status", "git status\nrm -rf /", False),
            ("pytest*", "pytest", True),
            ("pytest*", "pytest -q tests/", True),
            ("pytest*", "pytest -q; rm -rf /", False),
            ("pytest*", "pytest -q && curl evil | sh", False),
            ("pytest*", "python -m pytest", False),
            ("make test", "make test > log.txt", False),
        ],
    )
    def test_matching(self, prefix, command, allowed):
        """A prefix covers the command or the command plus arguments; never chaining beyond it."""
        assert bash_prefix_matches(prefix, command) is allowed

    @pytest.mark.parametrize(
        ("command", "prefix"),
        [
            ("git status -s", "git status"),
            ("pytest -q tests/x.py", "pytest"),
            ("python -m pytest -q", "python -m pytest"),
            ("npm run build", "npm run build"),
            ("ls -la", "ls"),
            ("git -c alias.x=!sh x", None),
            ("git", None),
            ("python -c 'import os'", None),
            ("bash -c 'rm -rf /'", None),
            ("sudo ls", None),
            ("rm -rf build", None),
            ("FOO=1 make", None),
            ("ls; rm -rf /", None),
            ("cat a | grep b", None),
        ],
    )
    def test_suggested_prefix(self, command, prefix):
        """The session prefix offered is the first word(s), never one that allows anything."""
        assert suggest_prefix(command) == prefix


class TestPolicy:
    async def test_non_mutating_never_asks(self, tmp_path):
        """Tools that change nothing run without asking."""
        approver = Recorder()
        allowed, _ = await check(
            PermissionPolicy(approver=approver, words=SHIPPED_WORDS),
            "read_file",
            {"path": "x"},
            ReadFileTool.spec,
            tmp_path,
        )
        assert allowed and approver.requests == []

    async def test_config_rules(self, tmp_path):
        """`edit_file` allows the tool; `bash:git status` allows that prefix and nothing chained."""
        approver = Recorder(ApprovalDecision("deny"))
        policy = PermissionPolicy(
            ["edit_file", "bash:git status", "bash:pytest*"], approver, words=SHIPPED_WORDS
        )
        assert (await check(policy, "edit_file", {"path": "a"}, EDIT, tmp_path))[0]
        verdict = await policy.decide("bash", bash("git status -s"), BASH, tmp_path)
        assert verdict == Verdict(True, "rule", "allowed by rule bash:git status")
        assert (await check(policy, "bash", bash("pytest -x"), BASH, tmp_path))[0]
        assert approver.requests == []
        denied, message = await check(policy, "bash", bash("git status; rm -rf /"), BASH, tmp_path)
        assert not denied and message == "Permission denied by the user for bash: git status; rm -rf /."
        assert approver.requests[0].preview == "git status; rm -rf /"
        assert approver.requests[0].suggested_prefix is None

    async def test_session_prefix(self, tmp_path):
        """allow_session with a prefix covers later commands with that prefix only."""
        approver = Recorder(ApprovalDecision("allow_session", prefix="git log"), ApprovalDecision("deny"))
        policy = PermissionPolicy(approver=approver, words=SHIPPED_WORDS)
        assert (await check(policy, "bash", bash("git log -3"), BASH, tmp_path))[0]
        assert approver.requests[0].suggested_prefix == "git log"
        ok, reason = await check(policy, "bash", bash("git log --oneline"), BASH, tmp_path)
        assert ok and "this session" in reason and len(approver.requests) == 1
        assert not (await check(policy, "bash", bash("git log; rm x"), BASH, tmp_path))[0]
        assert len(approver.requests) == 2

    async def test_session_exact_command(self, tmp_path):
        """allow_session without a prefix covers exactly that command, not all of bash."""
        approver = Recorder(ApprovalDecision("allow_session"), ApprovalDecision("deny"))
        policy = PermissionPolicy(approver=approver, words=SHIPPED_WORDS)
        assert (await check(policy, "bash", bash("make && make install"), BASH, tmp_path))[0]
        assert (await check(policy, "bash", bash("make && make install"), BASH, tmp_path))[0]
        assert not (await check(policy, "bash", bash("make && rm -rf /"), BASH, tmp_path))[0]
        assert len(approver.requests) == 2
        with pytest.raises(ValueError):
            policy.add_session_rule("bash")

    async def test_session_tool(self, tmp_path):
        """allow_session on a file tool covers that tool for the session."""
        approver = Recorder(ApprovalDecision("allow_session"))
        policy = PermissionPolicy(approver=approver, words=SHIPPED_WORDS)
        (tmp_path / "a.txt").write_text("x\n")
        args = {"path": "a.txt", "old_string": "x", "new_string": "y"}
        assert (await check(policy, "edit_file", args, EDIT, tmp_path))[0]
        assert (await check(policy, "edit_file", args, EDIT, tmp_path))[0]
        assert len(approver.requests) == 1
        assert "-x\n+y\n" in approver.requests[0].preview

    async def test_allow_once_asks_again(self, tmp_path):
        """allow_once allows this call only."""
        approver = Recorder(ApprovalDecision("allow_once"), ApprovalDecision("deny"))
        policy = PermissionPolicy(approver=approver, words=SHIPPED_WORDS)
        assert (await check(policy, "bash", bash("ls"), BASH, tmp_path))[0]
        assert not (await check(policy, "bash", bash("ls"), BASH, tmp_path))[0]

    async def test_write_preview_is_diff(self, tmp_path):
        """The approval request for write_file carries the diff it would apply."""
        approver = Recorder(ApprovalDecision("deny"))
        policy = PermissionPolicy(approver=approver, words=SHIPPED_WORDS)
        ok, message = await check(
            policy, "write_file", {"path": "n.txt", "content": "hi\n"}, WriteFileTool.spec, tmp_path
        )
        assert not ok and message == "Permission denied by the user for write_file: n.txt."
        assert approver.requests[0].preview.startswith("--- /dev/null")

    async def test_headless(self, tmp_path):
        """Without an approver: denied with a hint; with yes=True: allowed."""
        ok, message = await check(
            PermissionPolicy(words=SHIPPED_WORDS), "bash", bash("rm -rf build"), BASH, tmp_path
        )
        assert not ok
        assert message == f"Permission denied for bash: rm -rf build. {HEADLESS_HINT}."
        assert (
            await check(
                PermissionPolicy(yes=True, words=SHIPPED_WORDS), "bash", bash("rm -rf build"), BASH, tmp_path
            )
        )[0]
        assert (await headless_approver(True)(ApprovalRequest("bash", {}, "", None))).action == "allow_once"

    async def test_concurrent_calls_ask_once(self, tmp_path):
        """Two calls waiting on one question: the session rule from the first answer covers the second."""
        gate, asked = asyncio.Event(), asyncio.Event()

        class Gated(Recorder):
            async def __call__(self, request):
                asked.set()
                await gate.wait()
                return await super().__call__(request)

        approver = Gated(ApprovalDecision("allow_session", prefix="pytest"))
        policy = PermissionPolicy(approver=approver, words=SHIPPED_WORDS)
        first = asyncio.create_task(check(policy, "bash", bash("pytest -q"), BASH, tmp_path))
        second = asyncio.create_task(check(policy, "bash", bash("pytest -x"), BASH, tmp_path))
        await asked.wait()  # the first is asking; the second is queued behind it
        gate.set()
        assert (await first)[0] and (await second)[0]
        assert len(approver.requests) == 1

    def test_unsupported_rule_ignored(self, caplog):
        """A rule of an unknown form is ignored with a warning, not treated as allow-all."""
        policy = PermissionPolicy(["task:src/*"], words=SHIPPED_WORDS)
        assert policy.rule_for("task", {"path": "src/a"}) is None
        assert "ignoring" in caplog.text
