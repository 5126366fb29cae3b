"""How a PreToolUse hook's `permissionDecision` meets the approval wall, and the Notification
event fired when agent-tui asks the user.

`allow` answers the approval question for the call in hand (protected paths and sandbox
refusals still stand: a hook cannot widen those); `ask` asks the user even where a rule or
`--yes` would have allowed; `deny` never reaches here (the call is blocked first). The decision
travels in a context variable set around the one permission check it is for, so the policy
itself needs no hook-in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest

if TYPE_CHECKING:
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.tools.permissions import Approver


@dataclass
class PreDecision:
    permission: str | None
    asked: bool = False
    """The user was asked during the check (so `ask` needs no second question)."""


_current: ContextVar[PreDecision | None] = ContextVar("hook_permission", default=None)


@contextlib.contextmanager
def deciding(permission: str | None) -> Iterator[PreDecision]:
    """Around one permission check: what the PreToolUse hooks said about the call."""
    outer = _current.get()
    if permission is None and outer is not None:  # a custom command's grant around its call
        permission = outer.permission
    state = PreDecision(permission)
    token = _current.set(state)
    try:
        yield state
    finally:
        _current.reset(token)


def hooked_approver(inner: Approver, runner: HookRunner | None) -> Approver:
    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        state = _current.get()
        protected = request.protected
        if state is not None and state.permission == "allow" and not request.once_only and not protected:
            return ApprovalDecision("allow_once")
        if state is not None:
            state.asked = True
        if runner is not None:
            message = f"agent-tui needs your permission to use {request.tool}"
            await runner.fire("Notification", {"message": message})
        return await inner(request)

    return approve
