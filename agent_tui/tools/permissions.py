"""Who may run a tool that changes things: allow rules, session approvals, `--yes`, the approver.

Only tools whose spec says `mutates` ask. A call is allowed by an allow rule of any tier (the
user's config, the project's files, an "allow for this session" answer; permission_rules.py), by
`--yes`, or by the injected approver (a modal in the TUI, `headless_approver` in `run`). A
protected path and a rerun outside the sandbox are asked about every time. The policy returns a
`Verdict` (tools/verdict.py) and leaves showing it to the caller. The values it exchanges with
the approver are in tools/approval_request.py, what an approval shows in approval_preview.py.
"""

from __future__ import annotations

import asyncio
import logging
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.base import tool_decl
from agent_tui.policy.permission_modes import PermissionMode, plan_refusal
from agent_tui.policy.permission_rules import (
    AllowRule,
    RuleError,
    RuleSet,
    Tier,
    bash_prefix_matches,
    normalize_command,
)
from agent_tui.policy.rule_targets import host_of
from agent_tui.policy.rule_vocabulary import RuleVocabulary
from agent_tui.tools.approval_preview import build_preview, describe_call, sandbox_refusal, where
from agent_tui.tools.approval_request import (
    HEADLESS_HINT,
    PROTECTED_HINT,
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    headless_approver,
)
from agent_tui.tools.prefixes import suggest_prefix
from agent_tui.tools.protected import protected_reason
from agent_tui.tools.verdict import Verdict

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.tools.base import ToolSpec
    from agent_tui.tools.sandbox import Sandbox

log = logging.getLogger(__name__)

# The names callers have long imported from here.
__all__ = [
    "HEADLESS_HINT",
    "PROTECTED_HINT",
    "ApprovalDecision",
    "ApprovalRequest",
    "Approver",
    "PermissionPolicy",
    "Verdict",
    "bash_prefix_matches",
    "build_preview",
    "headless_approver",
    "normalize_command",
    "suggest_prefix",
]


class PermissionPolicy:
    """Decides whether a call may run; remembers "allow for this session" answers."""

    def __init__(
        self,
        allow_rules: Iterable[str | tuple[str, Tier]] = (),
        approver: Approver | None = None,
        yes: bool = False,
        sandbox: Sandbox | None = None,
        *,
        words: RuleVocabulary,
        ask_rules: Iterable[str | tuple[str, Tier]] = (),
        deny_rules: Iterable[str | tuple[str, Tier]] = (),
        claude_hints: bool = False,
        relay: Callable[[Approver], Approver] | None = None,
    ) -> None:
        """`words`: what the tools declare, which rules are read in (compose/rule_words.py).
        `relay` wraps whichever approver answers (the hooks' Notification and
        permissionDecision, hooks/approval.py)."""
        self.yes = yes
        self.interactive = approver is not None
        """A person answers (the TUI); headless runs have nobody to ask about an unsandboxed rerun."""
        self.words = words
        answering = approver or headless_approver(yes, claude_hints=words if claude_hints else None)
        self.approver = relay(answering) if relay is not None else answering
        self.sandbox = sandbox
        self.rules = _rule_set(allow_rules, "allow", words)
        self.ask_rules = _rule_set(ask_rules, "ask", words)
        """Calls asked about every time, whatever an allow rule, a session answer or a read-only tool."""
        self.deny_rules = _rule_set(deny_rules, "deny", words)
        """Calls refused unasked, even with --yes; checked first."""
        self.mode: PermissionMode = "default"
        """Shift+Tab's mode (permission_modes.py): plan refuses, accept edits allows file edits,
        auto_sandboxed lets a sandboxed command run unasked."""
        self._lock = asyncio.Lock()
        self._projects: dict[str, bool] = {}
        """Other projects whose stored outputs this session was allowed (True) or denied."""

    @classmethod
    def of_config(
        cls,
        cfg: Config,
        *,
        words: RuleVocabulary,
        approver: Approver | None,
        yes: bool,
        sandbox: Sandbox | None,
        relay: Callable[[Approver], Approver] | None = None,
    ) -> PermissionPolicy:
        """The policy a session's config asks for: every tier's allow, ask and deny rules, in
        either syntax, and hints in Claude Code's syntax when its settings hold rules."""
        return cls(
            cfg.allow_tiers(),
            words=words,
            approver=approver,
            yes=yes,
            sandbox=sandbox,
            ask_rules=cfg.rules_of("ask"),
            deny_rules=cfg.rules_of("deny"),
            claude_hints=cfg.provenance.claude_rules,
            relay=relay,
        )

    def may_ask(self, mutates: bool) -> bool:
        """Whether a call of a tool must go through `decide`: one that changes things, or any
        while ask or deny rules exist (they cover tools that only read, like `Read(./.env)`)."""
        return mutates or bool(len(self.ask_rules) or len(self.deny_rules))

    def add_session_rule(self, tool: str, prefix: str | None = None, *, exact: str | None = None) -> None:
        """Allow `tool` for the rest of the session; for bash a `prefix` or an `exact` command
        is required (a session rule never covers all of bash)."""
        if tool != "bash":
            self.rules.add(AllowRule(tool), "session")
            return
        try:
            self.rules.add(AllowRule.for_command(prefix, exact or ""), "session")
        except RuleError:
            raise ValueError("a bash session rule needs a prefix or an exact command") from None

    def revoke(self, rule: str) -> bool:
        """Stop `rule` (as /permissions lists it) allowing anything, from the next call on."""
        try:
            return any([self.rules.remove(found) for found in AllowRule.parse_all(rule, self.words)])
        except RuleError:
            return False

    def rule_for(self, tool_name: str, args: dict[str, Any], workspace: Path | None = None) -> str | None:
        """The rule that allows this call without asking, or None."""
        found = self.rules.match(tool_name, args, workspace)
        if found is None:
            return None
        rule, tier = found
        return rule.format() + (" (this session)" if tier == "session" else "")

    async def decide(self, tool_name: str, args: dict[str, Any], spec: ToolSpec, workspace: Path) -> Verdict:
        """Whether the call may run; the detail is the message for the model when not."""
        if denied := self.deny_rules.match(tool_name, args, workspace):
            deny_rule, tier = denied
            what = describe_call(tool_name, args)
            return Verdict(
                False,
                "denied_by_rule",
                f"Permission denied for {tool_name}: {what}: the deny rule {deny_rule.format()} "
                f"({'your settings' if tier == 'user' else 'the project settings'}) refuses it. "
                "Do not retry it; find another way or ask the user.",
            )
        # An ask rule: every wall below still stands, but no allow rule or grant answers for it.
        forced = self.ask_rules.match(tool_name, args, workspace) is not None
        if not spec.mutates and not forced:
            return Verdict(True, "read_only", "does not change anything")
        if self.mode == "plan":
            return Verdict(False, "plan_mode", plan_refusal(tool_name))
        sandbox = self.sandbox
        if sandbox is not None and sandbox.active:
            refusal = sandbox_refusal(sandbox, tool_name, args, workspace)
            if refusal:
                return Verdict(False, "sandbox_refused", refusal)
        if tool_decl.checkpointed(tool_name) and (
            why := protected_reason(workspace, tool_decl.path_of(tool_name, args))
        ):
            return await self._decide_protected(tool_name, args, workspace, why)
        if self.mode == "accept_edits" and tool_decl.checkpointed(tool_name):
            return Verdict(True, "accept_edits", "allowed: accept-edits mode")
        if sandbox is not None and sandbox.active:
            # Any truthy value: the registry lets only booleans through, and a caller that
            # skipped it must not find a spelling that runs unsandboxed unasked.
            if tool_name == "bash" and args.get("unsandboxed"):
                return await self._ask_unsandboxed(args)
            if tool_name == "bash" and sandbox.auto_allows(self.mode == "auto_sandboxed") and not forced:
                return Verdict(True, "sandboxed", "allowed: runs in the sandbox (auto_approve)")
        if not forced and (rule := self.rule_for(tool_name, args, workspace)):
            return Verdict(True, "rule", f"allowed by rule {rule}")
        return await self._ask_by_rule(tool_name, args, spec, workspace, rules_apply=not forced)

    async def _ask_by_rule(
        self,
        tool_name: str,
        args: dict[str, Any],
        spec: ToolSpec,
        workspace: Path,
        *,
        rules_apply: bool = False,
    ) -> Verdict:
        """Ask the approver (--yes answers for it). `rules_apply`: an allow rule or session
        answer given meanwhile covers the call; not so when an ask rule sent it here."""
        if self.yes:
            return Verdict(True, "yes_flag", "allowed by --yes")
        # One question at a time: a session rule granted by the first answer covers the rest.
        async with self._lock:
            if rules_apply and (rule := self.rule_for(tool_name, args, workspace)):
                return Verdict(True, "rule", f"allowed by rule {rule}")
            command = args.get("command") if tool_name == "bash" else None
            preview = await asyncio.to_thread(build_preview, tool_name, args, workspace)
            if spec.hints:
                preview += f"\n\nThe server says this tool is: {spec.hints} (not trusted: asking anyway)"
            request = ApprovalRequest(
                tool=tool_name,
                arguments=args,
                preview=preview,
                suggested_prefix=suggest_prefix(command) if isinstance(command, str) else None,
                sandbox=where(self.sandbox) if tool_name == "bash" else None,
            )
            decision = await self.approver(request)
        return await self._adopt(decision, tool_name, args, workspace)

    async def _adopt(
        self, decision: ApprovalDecision, tool_name: str, args: dict[str, Any], workspace: Path
    ) -> Verdict:
        """The approver's answer as a verdict, remembering what it grants."""
        command = str(args.get("command") or "") if tool_name == "bash" else ""
        if decision.action == "allow_once":
            return Verdict(True, "asked_once", "allowed once")
        domain = host_of(str(args.get("url") or "")) if tool_name in self.words.domain_tools else ""
        if decision.action == "allow_always":
            rule = AllowRule(tool_name, domain=domain) if domain else AllowRule(tool_name)
            if tool_name == "bash":
                rule = AllowRule("bash", prefix=(decision.prefix or command).strip())
            self.rules.add(rule, "local")
            try:
                from agent_tui.policy.allow_rules import add_rule  # lazy: start-up

                written = await asyncio.to_thread(add_rule, rule.format(), workspace)
                log.info("allow rule %r written to %s", rule.format(), written)
            except Exception:
                log.exception("could not write allow rule %r", rule.format())
            return Verdict(True, "asked_always", f"allowed from now on by rule {rule.format()}")
        if decision.action == "allow_session":
            if tool_name == "bash":
                self.add_session_rule("bash", decision.prefix, exact=command)
            elif domain:  # a web answer covers that domain, never the whole web
                self.rules.add(AllowRule(tool_name, domain=domain), "session")
            else:
                self.add_session_rule(tool_name)
            return Verdict(True, "asked_session", "allowed for this session")
        what = describe_call(tool_name, args)
        if decision.reason:
            return Verdict(
                False, "denied_with_hint", f"Permission denied for {tool_name}: {what}. {decision.reason}."
            )
        return Verdict(False, "denied_by_user", f"Permission denied by the user for {tool_name}: {what}.")

    async def _decide_protected(
        self, tool_name: str, args: dict[str, Any], workspace: Path, why: str
    ) -> Verdict:
        """A protected path: no rule or session grant applies; the user answers every time."""
        what = describe_call(tool_name, args)
        if self.yes:
            return Verdict(True, "protected_allowed", f"protected path ({why}) allowed by --yes")
        async with self._lock:
            preview = await asyncio.to_thread(build_preview, tool_name, args, workspace)
            request = ApprovalRequest(
                tool=tool_name,
                arguments=args,
                preview=f"PROTECTED: {what}: {why}. Asked every time.\n\n{preview}",
                suggested_prefix=None,
                protected=True,
            )
            decision = await self.approver(request)
        if decision.action != "deny":
            return Verdict(True, "protected_allowed", "protected path allowed once")
        hint = (
            f" {PROTECTED_HINT}."
            if decision.reason == HEADLESS_HINT
            else (f" {decision.reason}." if decision.reason else "")
        )
        return Verdict(
            False,
            "protected_denied",
            f"Permission denied for {tool_name}: {what} is protected ({why}).{hint}",
        )

    async def allow_project(self, project: str, tool_name: str) -> bool:
        """May this session read another project's stored outputs? Asked once per project per
        session (`--yes` allows; a denial also holds for the session)."""
        if self.yes:
            return True
        async with self._lock:
            if project not in self._projects:
                request = ApprovalRequest(
                    tool=tool_name,
                    arguments={"project": project},
                    preview=(
                        f"Read stored outputs of another project: {project}\n"
                        '(asked once per session; [store] recall_scope = "all" in your config never asks)'
                    ),
                    suggested_prefix=None,
                )
                decision = await self.approver(request)
                self._projects[project] = decision.action != "deny"
            return self._projects[project]

    async def _ask_unsandboxed(self, args: dict[str, Any]) -> Verdict:
        """An unsandboxed rerun: always the user's call, once, whatever the rules or --yes."""
        command = str(args.get("command", ""))
        if not self.interactive:
            return Verdict(
                False,
                "unsandboxed_unasked",
                f"Permission denied for bash unsandboxed: {command}. Running outside the sandbox "
                "needs the user's approval each time, and nobody can be asked here (--yes and allow "
                "rules do not cover it); run it yourself or in the TUI.",
            )
        async with self._lock:
            request = ApprovalRequest(
                tool="bash",
                arguments=args,
                preview=command,
                suggested_prefix=None,
                sandbox="runs NOT sandboxed: full access to your files and the network (the model "
                "asked to rerun it outside the sandbox)",
                once_only=True,
            )
            decision = await self.approver(request)
        if decision.action == "deny":
            reason = f" {decision.reason}." if decision.reason else ""
            return Verdict(
                False,
                "unsandboxed_denied",
                f"Permission denied by the user for bash unsandboxed: {command}.{reason}",
            )
        return Verdict(True, "unsandboxed_allowed", "allowed once outside the sandbox")


def _rule_set(entries: Iterable[str | tuple[str, Tier]], kind: str, words: RuleVocabulary) -> RuleSet:
    """Rules in either syntax, each with its tier (a bare string: the user's); one that cannot
    match is logged and skipped (the config check has named it already)."""
    rules = RuleSet()
    for entry in entries:
        text, tier = (entry, "user") if isinstance(entry, str) else entry
        try:
            for rule in AllowRule.parse_all(text, words):
                rules.add(rule, typing.cast(Tier, tier))
        except RuleError as exc:
            log.warning("ignoring %s rule %r: %s", kind, text, exc)
    return rules
