"""What the approver is asked and what it answers: the values between the policy and whoever
decides (the TUI's modal, ACP's permission request, `headless_approver` in `run`, a hook)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from agent_tui.policy.claude_rules import format_claude
from agent_tui.policy.rule_vocabulary import RuleVocabulary

HEADLESS_HINT = (
    "Re-run with --yes or add a rule to [tools] allow in your config "
    "(or in .agent-tui.toml of a trusted folder)"
)
PROTECTED_HINT = "No allow rule covers a protected path; only --yes (or answering the question) does"


@dataclass(frozen=True)
class ApprovalRequest:
    """What the approver is asked about."""

    tool: str
    """Tool name."""
    arguments: dict[str, Any]
    """Parsed arguments of the call."""
    preview: str
    """What would happen: the command for bash, the diff for write/edit, the arguments otherwise."""
    suggested_prefix: str | None
    """For bash, the prefix "allow for this session" would cover (`git status`); None = only
    this exact command."""
    sandbox: str | None = None
    """For bash, where it would run: `sandboxed (workspace-write · no network)` or `NOT
    sandboxed …`; None when there is no sandbox to speak of."""
    once_only: bool = False
    """Only "allow once" or "deny" count (an unsandboxed rerun is never remembered)."""
    protected: bool = False
    """The call writes a protected path: asked every time, whatever a rule or a hook says."""


@dataclass(frozen=True)
class ApprovalDecision:
    """The approver's answer."""

    action: Literal["allow_once", "allow_session", "allow_always", "deny"]
    """Allow this call, allow it (or its prefix) for the rest of the session, allow it from now
    on (a rule written to the project's .agent-tui.local.toml), or refuse."""
    prefix: str | None = None
    """For allow_session / allow_always on bash: the prefix to allow; None = the exact command."""
    reason: str | None = None
    """For deny: a hint for the model (headless mode says how to allow); None = the user said no."""


Approver = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]


def claude_hint(request: ApprovalRequest, words: RuleVocabulary) -> str:
    """The headless hint for a user whose rules live in Claude Code's settings.json: the rule
    that would allow this call, in that syntax."""

    command = request.arguments.get("command") if request.tool == "bash" else None
    rule = format_claude(
        request.tool,
        words,
        prefix=request.suggested_prefix,
        exact=command if isinstance(command, str) else None,
    )
    return (
        f'Re-run with --yes or add "{rule}" to permissions.allow in .claude/settings.json '
        "(or in your ~/.claude/settings.json)"
    )


def headless_approver(yes: bool, *, claude_hints: RuleVocabulary | None = None) -> Approver:
    """The approver for `agent-tui run`: allows everything with --yes, denies with a hint without
    (in Claude Code's rule syntax, in the words of `claude_hints`, when the user keeps rules in
    its settings files)."""

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        if yes:
            return ApprovalDecision("allow_once")
        if claude_hints is not None and not request.protected:
            return ApprovalDecision("deny", reason=claude_hint(request, claude_hints))
        return ApprovalDecision("deny", reason=HEADLESS_HINT)

    return approve
