"""The session's side of the state kept beside its conversation: loading it on resume, saving it
on every change the user makes (/pin, /unpin), and the events that tell the front ends.

The state itself (context/side_state.py) is shared with the tools (`ToolServices.side`), which
change and save it from the model's calls; the loop reports those changes after each call.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.policy.permission_modes import PLAN_NOTE, parse_mode

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.context.budget import BudgetMeter
    from agent_tui.context.side_state import Pin, PinAuthor, SideState
    from agent_tui.policy.permission_modes import PermissionMode
    from agent_tui.store import Store
    from agent_tui.tools.permissions import PermissionPolicy

log = logging.getLogger(__name__)


class SideKeeper:
    def __init__(
        self,
        state: SideState,
        store: Store | None,
        session_id: str,
        meter: BudgetMeter,
        config: Config,
        policy: PermissionPolicy,
    ) -> None:
        self.state = state
        self.policy = policy
        self.store = store
        self.session_id = session_id
        self.configured_pins = config.compaction.pin_budget_tokens
        state.count = meter.counter.count_text
        self.fit_window(meter.total - meter.max_output_tokens)  # measuring keeps it in step after
        self.earlier_compactions: list[dict[str, Any]] = []
        """The stored records of compactions from earlier runs of the session (/context lists them)."""

    def fit_window(self, effective_window: int) -> int:
        """The pins' budget for this window (the task list's too); what the meter shows."""
        self.state.fit_window(effective_window, self.configured_pins)
        return self.state.pin_budget

    async def restore(self) -> None:
        """What the stored session had (a resume, a fork, a hand-off); nothing when it had none."""
        if self.store is None:
            return
        try:
            saved = await self.store.side.load(self.session_id)
        except Exception:
            log.exception("reading the pins and task list of %s failed", self.session_id)
            return
        if saved is not None:
            self.state.load(*saved)
            self.set_mode(parse_mode(self.state.mode) or "default")
        try:
            stored = await self.store.side.compactions(self.session_id)
            self.earlier_compactions = [json.loads(record) for _, record in stored]
        except Exception:
            log.exception("reading the compaction records of %s failed", self.session_id)

    async def save(self) -> None:
        if self.store is not None:
            await self.store.side.save(self.session_id, *self.state.dumps())

    async def pin(self, text: str, *, by: PinAuthor = "user", source: str = "") -> Pin:
        """Pin `text` and save; PinBudgetFull or ValueError (empty) with a message to show."""
        pin = self.state.add_pin(text, by=by, source=source)
        await self.save()
        return pin

    async def unpin(self, pin_id: str) -> Pin | None:
        pin = self.state.remove_pin(pin_id)
        if pin is not None:
            await self.save()
        return pin

    def set_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode: the policy enforces it, plan mode's note rides along,
        and the next save stores it (`save()`)."""

        self.policy.mode = mode
        self.state.mode = mode
        self.state.mode_note = PLAN_NOTE if mode == "plan" else ""

    def event(self) -> ev.SideStateChanged:
        """The state as it is now, for a front end that just changed or opened it."""
        self.state.changed = False
        return ev.SideStateChanged.of(self.state)
