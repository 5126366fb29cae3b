"""One child's turn as the parent learns of it: how it ended, read off its events, and the
envelope that carries it back (agent/envelope.py).

The manager (agent/subagents.py) starts children, caps how many run, passes their events up and
rolls their usage into the parent's; what a single child's turn came to — completed, stopped (turn
limit, a denial, its context blocked, cancelled) or failed, with the text it said last — is
decided here, from its events alone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.agent.envelope import Envelope, last_text

if TYPE_CHECKING:
    from agent_tui.agent.session_port import SubagentSession as AgentSession
    from agent_tui.context.budget import ContextBudget
    from agent_tui.tools.base import ToolContext

log = logging.getLogger(__name__)

TASK = "task"


@dataclass
class ChildTurn:
    """What a child's turn has come to so far."""

    state: str = "completed"
    """completed / stopped / error."""
    reason: str | None = None
    """Why it stopped or failed (`turn limit`, `denied`, `context …`, `cancelled`, the error)."""
    said: list[str] = field(default_factory=list)
    """The text of its current step (its answer when the turn ends without a final one)."""
    final: ev.TurnFinished | None = None
    blocked: ContextBudget | None = None
    """The last measure, when it was past the block."""

    def see(self, event: ev.AgentEvent) -> bool:
        """Take one event into account; False when the child must stop here."""
        match event:
            case ev.StepStarted() if self.blocked is None:
                self.said = []
            case ev.TextDelta(text=text):
                self.said.append(text)
            case ev.ErrorEvent(message=message, kind=kind):
                self.state, self.reason = (
                    ("stopped", "context") if kind == "context_length" else ("error", message)
                )
            case ev.BudgetMeasured(budget=budget):
                self.blocked = budget if budget.is_blocked else None
            case ev.StepStarted() if self.blocked is not None:
                # Compaction could not take the child under its own 98 % block: it stops
                # before the request, between steps, with every call answered.
                self.state = "stopped"
                self.reason = f"context ({self.blocked.used_fraction:.0%} full: blocked)"
                return False
            case ev.TurnFinished():
                self.final = event
        return True

    def ended(self) -> None:
        """The turn is over: a completed one that hit its limit or a denial stopped, in fact."""
        if self.final is not None and self.state == "completed":
            if self.final.stop_reason == "max_steps":
                self.state, self.reason = "stopped", "turn limit"
            elif self.final.stop_reason == "denied":
                self.state, self.reason = "stopped", "denied"

    def cancelled(self) -> None:
        self.state, self.reason, self.final = "stopped", "cancelled", None


async def envelope_for(
    child: AgentSession, ctx: ToolContext, description: str, turn: ChildTurn, started: float
) -> Envelope:
    """The envelope of a child's turn; its answer is stored whole (a ref) when it can be."""
    text = turn.final.text.strip() if turn.final is not None else ""
    is_final = bool(text) and turn.state == "completed"
    if not is_final:
        text = "".join(turn.said).strip() or last_text(child.history)
    answer_ref = None
    if text and ctx.offload is not None:
        try:
            answer_ref = await asyncio.shield(ctx.offload(TASK, text))
        except Exception:
            log.exception("storing the answer of sub-agent %s failed", child.session_id)
    messages = 0
    if child.store is not None:
        try:
            messages = await asyncio.shield(child.store.sessions.last_sequence(child.session_id))
        except Exception:
            log.exception("counting the transcript of %s failed", child.session_id)
    return Envelope(
        description=description,
        session_id=child.session_id,
        project=str(child.workspace),
        state=turn.state,
        reason=turn.reason,
        messages=messages,
        answer=text,
        final=is_final,
        answer_ref=answer_ref,
        usage=child.usage_total,
        cost=child.cost_total,
        duration=time.monotonic() - started,
    )
