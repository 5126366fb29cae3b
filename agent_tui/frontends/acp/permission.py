"""The approver of an editor session: our approval question as `session/request_permission`.

The choices are the TUI's: allow once, allow for this session, always allow (a rule written to
the project's .agent-tui.local.toml; it never trusts the folder), deny. A protected path or an
unsandboxed rerun offers only allow once and deny, as the TUI does — the policy asks those every
time whatever was answered before.
The question names the tool call the editor already shows (the call last started).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import schema as s
from acp.helpers import text_block, tool_content, update_tool_call

from agent_tui.base import tool_decl
from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest
from agent_tui.tools.protected import protected_reason
from agent_tui.tools.run_mode import background_notice

if TYPE_CHECKING:
    from agent_tui.base.messages import ToolCall
    from agent_tui.tools.permissions import Approver

log = logging.getLogger(__name__)

ALLOW_ONCE = s.PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once")
ALLOW_SESSION = s.PermissionOption(
    option_id="allow_session", name="Allow for this session", kind="allow_always"
)
ALLOW_ALWAYS = s.PermissionOption(
    option_id="allow_always", name="Always allow (a rule in .agent-tui.local.toml)", kind="allow_always"
)
DENY = s.PermissionOption(option_id="deny", name="Deny", kind="reject_once")
ACTIONS = {"allow_once", "allow_session", "allow_always"}


def asked_every_time(request: ApprovalRequest, workspace: Path) -> bool:
    """Only "allow once" or "deny" mean anything: an unsandboxed rerun, a protected path."""

    if request.once_only:
        return True
    if tool_decl.checkpointed(request.tool):
        try:
            return bool(protected_reason(workspace, tool_decl.path_of(request.tool, request.arguments)))
        except Exception:
            log.debug("protected check failed", exc_info=True)
    return False


def options_for(request: ApprovalRequest, workspace: Path) -> list[s.PermissionOption]:
    if asked_every_time(request, workspace):
        return [ALLOW_ONCE, DENY]
    return [ALLOW_ONCE, ALLOW_SESSION, ALLOW_ALWAYS, DENY]


def decision_for(option_id: str | None, request: ApprovalRequest) -> ApprovalDecision:
    """The editor's answer as ours; anything unknown or a cancelled question is a denial."""
    if option_id not in ACTIONS:
        return ApprovalDecision("deny")
    prefix = request.suggested_prefix if option_id != "allow_once" else None
    return ApprovalDecision(option_id, prefix)  # type: ignore[arg-type]  # one of the three literals


def editor_approver(
    client: Any,
    session_id: Callable[[], str],
    workspace: Path,
    current_call: Callable[[], ToolCall | None],
) -> Approver:
    """An approver that asks the connected editor."""

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        call = current_call()
        text = request.preview
        if request.sandbox:
            text = f"{text}\n\n({request.sandbox})"
        if background := background_notice(request.tool, request.arguments):
            text += f"\n\nThis command {background}."
        if request.suggested_prefix:
            text += (
                f'\n\n"Allow for this session" covers commands starting with `{request.suggested_prefix}`.'
            )
        update = s.ToolCallUpdate(
            tool_call_id=call.id if call is not None else f"approval-{request.tool}",
            title=f"Allow {request.tool}?",
            status="pending",
            content=[tool_content(text_block(text))],
            raw_input=request.arguments,
        )
        try:
            response = await client.request_permission(
                session_id=session_id(), tool_call=update, options=options_for(request, workspace)
            )
        except ConnectionError:
            return ApprovalDecision("deny", reason="the editor disconnected")
        outcome = response.outcome
        option = getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None
        decision = decision_for(option, request)
        if call is not None and decision.action != "deny":
            await client.session_update(session_id(), update_tool_call(call.id, status="in_progress"))
        return decision

    return approve
