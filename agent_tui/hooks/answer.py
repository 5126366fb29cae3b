"""What a hook's answer means, by Claude Code's contract.

Exit 0: go on; stdout is read as JSON when it is a JSON object (`continue`/`stopReason`,
`decision`/`reason`, `systemMessage`, `hookSpecificOutput` with `permissionDecision`,
`permissionDecisionReason`, `updatedInput`, `additionalContext`), else, for UserPromptSubmit and
SessionStart, as context for the model. Exit 2: block, with stderr as the reason. Any other
code, a timeout or a failure to start: shown to the user, never blocking.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent_tui.hooks.process import ProcessResult

CONTEXT_FROM_STDOUT = frozenset({"UserPromptSubmit", "SessionStart"})
BLOCKING_EVENTS = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})


@dataclass(frozen=True)
class HookAnswer:
    """One hook run, read."""

    blocked: bool = False
    """Exit 2 or `decision: "block"` (or `permissionDecision: "deny"` for PreToolUse)."""
    reason: str = ""
    """Why it blocked: for the model (and shown to the user)."""
    permission: str | None = None
    """PreToolUse: allow / deny / ask, when the hook said."""
    updated_input: dict[str, Any] | None = None
    context: str = ""
    """Text for the model: additionalContext, or plain stdout where that counts."""
    stop: str | None = None
    """`continue: false`: the turn ends; the stopReason for the user ('' when none given)."""
    message: str = ""
    """For the user only: a systemMessage, or what went wrong (exit code, timeout)."""
    failed: bool = False
    """Non-zero exit other than 2, a timeout or a failure to start."""


def _json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_answer(event: str, result: ProcessResult, timeout: float) -> HookAnswer:
    if result.timed_out:
        return HookAnswer(message=f"timed out after {timeout:g} s (killed)", failed=True)
    if result.error is not None:
        return HookAnswer(message=f"could not start: {result.error}", failed=True)
    stderr = result.stderr.strip()
    if result.exit_code == 2:
        if event in BLOCKING_EVENTS:
            return HookAnswer(blocked=True, reason=stderr or f"blocked by a {event} hook")
        return HookAnswer(message=stderr or "exit 2", failed=True)
    if result.exit_code != 0:
        return HookAnswer(message=f"exit {result.exit_code}" + (f": {stderr}" if stderr else ""), failed=True)
    data = _json_object(result.stdout)
    if data is None:
        context = result.stdout.strip() if event in CONTEXT_FROM_STDOUT else ""
        return HookAnswer(context=context)
    return _from_json(event, data)


def _from_json(event: str, data: dict[str, Any]) -> HookAnswer:
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    reason = str(data.get("reason") or "")
    decision = data.get("decision")
    permission: str | None = None
    blocked = decision == "block" and event in BLOCKING_EVENTS
    if event == "PreToolUse":
        chosen = specific.get("permissionDecision")
        if chosen in ("allow", "deny", "ask"):
            permission = chosen
            reason = str(specific.get("permissionDecisionReason") or reason)
        elif decision == "approve":  # the older top-level form
            permission = "allow"
        elif decision == "block":
            permission = "deny"
        blocked = permission == "deny"
    updated = specific.get("updatedInput")
    context = specific.get("additionalContext")
    stop = None
    if data.get("continue") is False:
        stop = str(data.get("stopReason") or "")
    return HookAnswer(
        blocked=blocked,
        reason=reason if blocked or permission else "",
        permission=permission,
        updated_input=updated if isinstance(updated, dict) else None,
        context=str(context) if isinstance(context, str) else "",
        stop=stop,
        message=str(data.get("systemMessage") or ""),
    )
