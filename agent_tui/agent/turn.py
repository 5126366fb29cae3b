"""A turn as steps: what one step of the loop ends in, and what the turn carries between steps.

`AgentSession.run_turn` is a loop over one step function (ask the model once, run its calls);
each step ends in a `StepOutcome`, a closed union the loop matches: ask the model again, retry
the same step, smaller, after the provider said the prompt was too long (not counted as a
step), or stop with a `StopReason`. `TurnState` is what a cancelled turn needs to leave the
history consistent (the partial reply, the calls still unanswered).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.agent.reply import StreamedReply
from agent_tui.base.messages import Message, ToolCall, tool_result

TRUNCATED_CALL = (
    "[not run: the reply was cut off at the output limit ({limit} tokens) while writing this "
    "call, so its arguments are incomplete JSON. Make a smaller change per call (e.g. write a "
    "large file in parts, or use edit_file), or raise [model] max_output_tokens.]"
)


@dataclass(frozen=True)
class NextStep:
    """Every call of the step is answered, or a Stop hook sent the agent back: ask again."""


@dataclass(frozen=True)
class RetryStep:
    """The provider said the prompt was too long and the history was compacted: the same step
    again (it is not counted against `[agent] max_steps`)."""


@dataclass(frozen=True)
class TurnOver:
    """The turn ends here, for this reason."""

    stop_reason: ev.StopReason


StepOutcome = NextStep | RetryStep | TurnOver


@dataclass
class TurnState:
    """What a turn carries from step to step."""

    reply: StreamedReply = field(default_factory=StreamedReply)
    """The current step's model call (the last one's text is the turn's answer)."""
    sent: Message | None = None
    """The user's message as it entered the history."""
    pending: Message | None = None
    """The assistant message whose tool results are not all in."""
    answered: set[str] = field(default_factory=set)
    refs: list[Any] = field(default_factory=list)
    """Every output stored whole during the turn."""
    replied: bool = False
    """An assistant message of this turn is in the history."""
    refused: list[tuple[int, Any]] = field(default_factory=list)
    """Each request of this turn the provider refused as too long: (its size by the provider's
    count, or our estimate when it named none; its fingerprint). A retry must be smaller than
    every one of them and differ from each, so the same request is never sent twice."""
    stop_hook_active: bool = False


def truncated_call(call: ToolCall, limit: int) -> tuple[Message, list[ev.AgentEvent]]:
    """A call the output limit cut off mid-arguments is not run: its result says why, and the
    user is told."""
    text = TRUNCATED_CALL.format(limit=f"{limit:,}")
    return tool_result(call, text, outcome="not_run"), [
        ev.ToolCallFinished(call, None, True, "cut off: not run", text, 0.0, "not_run"),
        ev.Notice(
            f"The model's reply was cut off at the output limit inside a {call.name} "
            "call; the call was not run and the model was told why."
        ),
    ]
