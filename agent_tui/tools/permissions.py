"""Who may run a tool that changes things: config rules, session approvals, `--yes`, the approver.

Only tools whose spec says `mutates` ask. A call is allowed by a `[tools] allow` rule (`edit_file`,
`bash:git status`, `bash:pytest*`), by an "allow for this session" answer given earlier, by
`--yes`, or by the injected approver (a modal in the TUI, `headless_approver` in `run`). A bash
rule is a command prefix, never a loophole: a command that chains, substitutes or redirects
beyond the prefix (`git status; rm -rf /`) does not match it and is asked about like any other.
The policy returns values — (allowed, message) — and leaves showing them to the caller.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.tools.prefixes import SHELL_META, suggest_prefix
from agent_tui.tools.protected import PATH_TOOLS, protected_reason

if TYPE_CHECKING:
    from agent_tui.tools.base import ToolSpec
    from agent_tui.tools.sandbox import Sandbox

log = logging.getLogger(__name__)

__all__ = ["ApprovalDecision", "ApprovalRequest", "PermissionPolicy", "suggest_prefix"]

HEADLESS_HINT = (
    "Re-run with --yes or add a rule to [tools] allow in your config "
    "(or in .agent-tui.toml of a trusted folder)"
)
PROTECTED_HINT = "No allow rule covers a protected path; only --yes (or answering the question) does"

_SHELL_META = SHELL_META


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


@dataclass(frozen=True)
class ApprovalDecision:
    """The approver's answer."""

    action: Literal["allow_once", "allow_session", "allow_always", "deny"]
    """Allow this call, allow it (or its prefix) for the rest of the session, allow it from now
    on (a rule written to the project's .agent-tui.toml), or refuse."""
    prefix: str | None = None
    """For allow_session / allow_always on bash: the prefix to allow; None = the exact command."""
    reason: str | None = None
    """For deny: a hint for the model (headless mode says how to allow); None = the user said no."""


Approver = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]


def headless_approver(yes: bool) -> Approver:
    """The approver for `agent-tui run`: allows everything with --yes, denies with a hint without."""

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        if yes:
            return ApprovalDecision("allow_once")
        return ApprovalDecision("deny", reason=HEADLESS_HINT)

    return approve


def normalize_command(command: str) -> str:
    """The form rules match against: trimmed, runs of spaces and tabs as one space. Newlines stay:
    they separate commands."""
    return re.sub(r"[ \t]+", " ", command.strip())


def bash_prefix_matches(prefix: str, command: str) -> bool:
    """Whether the rule `bash:<prefix>` covers `command`.

    `prefix` matches a command equal to it or starting with it plus a space; with a `*` it is a
    glob. Either way, what follows the literal part of the rule may not chain, pipe, substitute
    or redirect.
    """
    prefix, command = normalize_command(prefix), normalize_command(command)
    if not prefix:
        return False
    if "*" in prefix:
        literal = prefix[: prefix.index("*")]
        if not command.startswith(literal) or not fnmatch.fnmatchcase(command, prefix):
            return False
        rest = command[len(literal) :]
    elif command == prefix:
        return True
    elif command.startswith(prefix + " "):
        rest = command[len(prefix) :]
    else:
        return False
    return not _SHELL_META.search(rest)


def _describe(tool: str, args: dict[str, Any]) -> str:
    """The call in one line for messages: the command for bash, the path for file tools."""
    if tool == "bash":
        return str(args.get("command", ""))
    if "path" in args:
        return str(args["path"])
    return json.dumps(args, ensure_ascii=False)[:200]


def build_preview(tool: str, args: dict[str, Any], workspace: Path) -> str:
    """What the approver shows: the command, the diff a write/edit would apply, else the arguments."""
    if tool == "bash":
        return str(args.get("command", ""))
    if tool in ("write_file", "edit_file"):
        from agent_tui.tools.files import preview_edit, preview_write

        try:
            return (preview_write if tool == "write_file" else preview_edit)(args, workspace)
        except Exception as exc:
            log.exception("preview for %s failed", tool)
            return f"(no preview: {exc})"
    return json.dumps(args, ensure_ascii=False, indent=2)


class PermissionPolicy:
    """Decides whether a call may run; remembers "allow for this session" answers."""

    def __init__(
        self,
        allow_rules: Iterable[str] = (),
        approver: Approver | None = None,
        yes: bool = False,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.yes = yes
        self.interactive = approver is not None
        """A person answers (the TUI); headless runs have nobody to ask about an unsandboxed rerun."""
        self.approver = approver or headless_approver(yes)
        self.sandbox = sandbox
        self._tools: set[str] = set()
        self._bash_prefixes: list[str] = []
        self._bash_exact: set[str] = set()
        self._session_tools: set[str] = set()
        self._session_prefixes: list[str] = []
        self._session_exact: set[str] = set()
        self._lock = asyncio.Lock()
        self._projects: dict[str, bool] = {}
        """Other projects whose stored outputs this session was allowed (True) or denied."""
        for rule in allow_rules:
            self._add_config_rule(rule)

    def _add_config_rule(self, rule: str) -> None:
        tool, sep, pattern = rule.strip().partition(":")
        tool, pattern = tool.strip(), pattern.strip()
        if not tool:
            log.warning("ignoring empty [tools] allow rule %r", rule)
        elif not sep:
            self._tools.add(tool)
        elif tool == "bash" and pattern:
            self._bash_prefixes.append(pattern)
        else:
            log.warning("ignoring [tools] allow rule %r: only `tool` and `bash:PREFIX` are supported", rule)

    def add_session_rule(self, tool: str, prefix: str | None = None, *, exact: str | None = None) -> None:
        """Allow `tool` for the rest of the session; for bash a `prefix` or an `exact` command
        is required (a session rule never covers all of bash)."""
        if tool != "bash":
            self._session_tools.add(tool)
        elif prefix and prefix.strip():
            self._session_prefixes.append(prefix.strip())
        elif exact and exact.strip():
            self._session_exact.add(normalize_command(exact))
        else:
            raise ValueError("a bash session rule needs a prefix or an exact command")

    def grants(self) -> list[tuple[str, str]]:
        """Every rule that lets a call run unasked, as (rule, where): `config` (the config files'
        [tools] allow, .agent-tui.toml included) or `session` (an "allow for this session")."""
        config = sorted(self._tools) + [f"bash:{p}" for p in self._bash_prefixes]
        session = (
            sorted(self._session_tools)
            + [f"bash:{p}" for p in self._session_prefixes]
            + [f"bash:={c}" for c in sorted(self._session_exact)]
        )
        return [(rule, "config") for rule in config] + [(rule, "session") for rule in session]

    def revoke(self, rule: str) -> bool:
        """Stop `rule` (as `grants` spells it) allowing anything, from the next call on."""
        rule = rule.strip()
        tool, _, pattern = rule.partition(":")
        found = False
        for names in (self._tools, self._session_tools):
            if not pattern and tool in names:
                names.discard(tool)
                found = True
        if tool == "bash" and pattern:
            if pattern.startswith("=") and normalize_command(pattern[1:]) in self._session_exact:
                self._session_exact.discard(normalize_command(pattern[1:]))
                found = True
            for prefixes in (self._bash_prefixes, self._session_prefixes):
                while pattern in prefixes:
                    prefixes.remove(pattern)
                    found = True
        return found

    def rule_for(self, tool_name: str, args: dict[str, Any]) -> str | None:
        """The rule that allows this call without asking, or None."""
        if tool_name in self._tools:
            return tool_name
        if tool_name in self._session_tools:
            return f"{tool_name} (this session)"
        if tool_name != "bash":
            return None
        command = args.get("command")
        if not isinstance(command, str):
            return None
        for prefix in self._bash_prefixes:
            if bash_prefix_matches(prefix, command):
                return f"bash:{prefix}"
        if normalize_command(command) in self._session_exact:
            return "this exact command (this session)"
        for prefix in self._session_prefixes:
            if bash_prefix_matches(prefix, command):
                return f"bash:{prefix} (this session)"
        return None

    async def check(
        self, tool_name: str, args: dict[str, Any], spec: ToolSpec, workspace: Path
    ) -> tuple[bool, str]:
        """(allowed, reason): the reason is the message for the model when not allowed."""
        if not spec.mutates:
            return True, "does not change anything"
        sandbox = self.sandbox
        if sandbox is not None and sandbox.active:
            refusal = _sandbox_refusal(sandbox, tool_name, args, workspace)
            if refusal:
                return False, refusal
        if tool_name in PATH_TOOLS and (why := protected_reason(workspace, args.get("path"))):
            return await self._check_protected(tool_name, args, workspace, why)
        if sandbox is not None and sandbox.active:
            # Any truthy value: the registry lets only booleans through, and a caller that
            # skipped it must not find a spelling that runs unsandboxed unasked.
            if tool_name == "bash" and args.get("unsandboxed"):
                return await self._ask_unsandboxed(args)
            if tool_name == "bash" and sandbox.auto_allows():
                return True, "allowed: runs in the sandbox (auto_approve)"
        rule = self.rule_for(tool_name, args)
        if rule:
            return True, f"allowed by rule {rule}"
        if self.yes:
            return True, "allowed by --yes"
        # One question at a time: a session rule granted by the first answer covers the rest.
        async with self._lock:
            rule = self.rule_for(tool_name, args)
            if rule:
                return True, f"allowed by rule {rule}"
            command = args.get("command") if tool_name == "bash" else None
            preview = await asyncio.to_thread(build_preview, tool_name, args, workspace)
            if spec.hints:
                preview += f"\n\nThe server says this tool is: {spec.hints} (not trusted: asking anyway)"
            request = ApprovalRequest(
                tool=tool_name,
                arguments=args,
                preview=preview,
                suggested_prefix=suggest_prefix(command) if isinstance(command, str) else None,
                sandbox=_where(sandbox) if tool_name == "bash" else None,
            )
            decision = await self.approver(request)
        what = _describe(tool_name, args)
        if decision.action == "allow_once":
            return True, "allowed once"
        if decision.action == "allow_always":
            rule = tool_name
            if tool_name == "bash":
                rule = f"bash:{(decision.prefix or str(command or '')).strip()}"
            self._add_config_rule(rule)
            try:
                from agent_tui.allow_rules import add_rule

                written = await asyncio.to_thread(add_rule, rule, workspace)
                log.info("allow rule %r written to %s", rule, written)
            except Exception:
                log.exception("could not write allow rule %r", rule)
            return True, f"allowed from now on by rule {rule}"
        if decision.action == "allow_session":
            if tool_name == "bash":
                self.add_session_rule("bash", decision.prefix, exact=str(command or ""))
            else:
                self.add_session_rule(tool_name)
            return True, "allowed for this session"
        if decision.reason:
            return False, f"Permission denied for {tool_name}: {what}. {decision.reason}."
        return False, f"Permission denied by the user for {tool_name}: {what}."

    async def _check_protected(
        self, tool_name: str, args: dict[str, Any], workspace: Path, why: str
    ) -> tuple[bool, str]:
        """A protected path: no rule or session grant applies; the user answers every time."""
        what = _describe(tool_name, args)
        if self.yes:
            return True, f"protected path ({why}) allowed by --yes"
        async with self._lock:
            preview = await asyncio.to_thread(build_preview, tool_name, args, workspace)
            request = ApprovalRequest(
                tool=tool_name,
                arguments=args,
                preview=f"PROTECTED: {what}: {why}. Asked every time.\n\n{preview}",
                suggested_prefix=None,
            )
            decision = await self.approver(request)
        if decision.action != "deny":
            return True, "protected path allowed once"
        hint = (
            f" {PROTECTED_HINT}."
            if decision.reason == HEADLESS_HINT
            else (f" {decision.reason}." if decision.reason else "")
        )
        return False, f"Permission denied for {tool_name}: {what} is protected ({why}).{hint}"

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

    async def _ask_unsandboxed(self, args: dict[str, Any]) -> tuple[bool, str]:
        """An unsandboxed rerun: always the user's call, once, whatever the rules or --yes."""
        command = str(args.get("command", ""))
        if not self.interactive:
            return False, (
                f"Permission denied for bash unsandboxed: {command}. Running outside the sandbox "
                "needs the user's approval each time, and nobody can be asked here (--yes and allow "
                "rules do not cover it); run it yourself or in the TUI."
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
            return False, f"Permission denied by the user for bash unsandboxed: {command}.{reason}"
        return True, "allowed once outside the sandbox"


def _where(sandbox: Sandbox | None) -> str | None:
    """Where a bash command would run, for the approval dialog."""
    if sandbox is None or sandbox.topbar() is None:
        return None  # no sandbox, or the user turned it off: nothing new to say
    if sandbox.active:
        return f"runs sandboxed ({sandbox.label()})"
    return "runs NOT sandboxed (sandbox " + sandbox.label() + ")"


def _sandbox_refusal(sandbox: Sandbox, tool: str, args: dict[str, Any], workspace: Path) -> str | None:
    """File tools follow the sandbox's write rules: nothing in read-only mode, never a protected path."""
    if tool not in ("write_file", "edit_file"):
        return None
    from agent_tui.tools.workspace import PathError, resolve_path

    try:
        target = resolve_path(workspace, args.get("path"))
    except PathError:
        return None  # the tool itself explains a bad path
    refusal = sandbox.write_refusal(target)
    return f"Refused by the sandbox: {tool} {args.get('path')}: {refusal}." if refusal else None
