"""PreToolUse and PostToolUse around one tool call, for `agent/tool_runner.py`.

PreToolUse sees the arguments that will actually run — parsed and coerced the way the registry
will coerce them — and an `updatedInput` replaces them before the permission decision is made,
so the approval question, the sandbox and the tool all see the same call.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.hooks.runner import NOTHING, HookOutcome
from agent_tui.tools.permissions import ApprovalRequest, build_preview
from agent_tui.tools.registry import check_arguments

if TYPE_CHECKING:
    from agent_tui.base.messages import ToolCall
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.tools.base import ToolSpec
    from agent_tui.tools.permissions import PermissionPolicy

BLOCKED = "Blocked by a PreToolUse hook: {reason}"


def _arguments(call: ToolCall, spec: ToolSpec) -> dict[str, Any] | None:

    try:
        args = call.parsed_arguments()
    except ValueError:
        return None
    fixed, problem = check_arguments(spec, args)
    return args if problem else fixed


async def pre_tool_use(hooks: HookRunner, call: ToolCall, spec: ToolSpec) -> tuple[ToolCall, HookOutcome]:
    """The call as it will run (the hooks' `updatedInput` applied) and what the hooks said."""
    if not hooks.has("PreToolUse", call.name):
        return call, NOTHING
    args = _arguments(call, spec)
    if args is None:  # not a JSON object: the registry's own error tells the model
        return call, NOTHING
    outcome = await hooks.fire("PreToolUse", {"tool_use_id": call.id}, tool=call.name, args=args)
    new_args = outcome.updated_input if outcome.updated_input is not None else args
    if new_args != call.parsed_arguments():
        call = replace(call, arguments=json.dumps(new_args, ensure_ascii=False))
    return call, outcome


async def ask_anyway(policy: PermissionPolicy, call: ToolCall, workspace: Path) -> tuple[bool, str]:
    """A hook said `ask` where nothing else would have: the user is asked about this call."""
    import asyncio

    args = call.parsed_arguments()
    preview = await asyncio.to_thread(build_preview, call.name, args, workspace)
    decision = await policy.approver(
        ApprovalRequest(
            tool=call.name,
            arguments=args,
            preview=f"A hook asks you to confirm.\n\n{preview}",
            suggested_prefix=None,
            once_only=True,
        )
    )
    if decision.action == "deny":
        return False, f"Permission denied by the user for {call.name} (a hook asked to confirm)."
    return True, "allowed once (a hook asked)"


async def post_tool_use(
    hooks: HookRunner, call: ToolCall, view: str, is_error: bool
) -> tuple[str, HookOutcome]:
    """The result text the model gets, with what PostToolUse hooks said appended."""
    if not hooks.has("PostToolUse", call.name):
        return view, NOTHING
    try:
        args = call.parsed_arguments()
    except ValueError:
        args = {}
    response = {"output": view, "is_error": is_error, "success": not is_error}
    outcome = await hooks.fire(
        "PostToolUse", {"tool_use_id": call.id}, tool=call.name, args=args, response=response
    )
    notes = []
    if outcome.blocked and outcome.reason:
        notes.append(f"[PostToolUse hook: {outcome.reason}]")
    if outcome.context:
        notes.append(f"[PostToolUse hook context: {outcome.context}]")
    if notes:
        view = f"{view.rstrip()}\n\n" + "\n".join(notes)
    return view, outcome
