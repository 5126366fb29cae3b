"""One step of a turn: ask the model once, run its calls, end in a `StepOutcome` (agent/turn.py).

The session's `run_turn` is a loop over `step`. A step sees the session as a `StepHost`, named
here so this module does not import the session that calls it. A context-length error on a step
that has said nothing is answered by learning from the refusal and retrying the step smaller
(agent/window.py); any other error ends the turn, keeping the partial
text marked, or taking the unanswered prompt back out of the history so a retry sends it once.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.agent import events as ev
from agent_tui.agent import reply as model_call
from agent_tui.agent import web_search
from agent_tui.agent.reply import StreamedReply
from agent_tui.agent.step_calls import run_calls
from agent_tui.agent.turn import NextStep, RetryStep, StepOutcome, TurnOver, TurnState
from agent_tui.agent.window import after_refusal
from agent_tui.base.messages import assistant, user
from agent_tui.hooks import turn_hooks
from agent_tui.llm.errors import LLMError

PAUSED = "pause_turn"
"""Anthropic's stop reason for a reply its server-side tools have not finished."""

if TYPE_CHECKING:
    from agent_tui.agent.history import SessionHistory
    from agent_tui.agent.session_compaction import SessionCompaction
    from agent_tui.agent.tool_runner import ToolRunner
    from agent_tui.base.messages import TokenUsage
    from agent_tui.config import Config
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.llm.models import ModelLimits


class StepHost(Protocol):
    """The session, as a step uses it."""

    config: Config
    limits: ModelLimits
    """Replaced when the provider reports a smaller window."""
    meter: BudgetMeter
    runner: ToolRunner
    record: SessionHistory
    compaction: SessionCompaction
    hooks: HookRunner | None
    turns: int

    def measure(self, *, with_status: bool = True) -> ContextBudget: ...

    @property
    def request_parts(self) -> tuple[list[Any], list[dict[str, Any]]]:
        """The prompt sections and tool schemas of the last measured request."""
        ...

    async def repair(self) -> list[str]: ...

    def request_stream(self) -> AsyncIterator[Any]:
        """The provider's stream for the live history (usage recorded as it comes)."""
        ...

    async def account_usage(self, usage: TokenUsage) -> ev.AgentEvent:
        """Price and record a reply's usage; the event reporting it."""
        ...


async def step(host: StepHost, turn: TurnState, number: int) -> AsyncIterator[ev.AgentEvent | StepOutcome]:
    """One model call and its tool calls; ends with the step's outcome."""
    for note in await host.repair():
        yield ev.Notice(note)
    budget = host.measure()
    yield ev.BudgetMeasured(budget)
    yield ev.StepStarted(number)
    reply = turn.reply = StreamedReply()
    try:
        searched = functools.partial(web_search.events, host.runner)
        async for event in model_call.follow(host.request_stream(), reply, host.account_usage, searched):
            yield event
    except LLMError as exc:
        if exc.kind == "context_length" and not reply.text_parts:
            async for change in after_refusal(host, turn, exc, budget):
                if isinstance(change, RetryStep):
                    yield change
                    return
                if isinstance(change, LLMError):
                    exc = change
                else:
                    yield change
        yield ev.ErrorEvent(str(exc), exc.kind)
        if reply.text_parts:  # kept, and marked so neither reader takes it for a whole reply
            await host.record.add(assistant(reply.text + f"\n\n[incomplete: {exc}]"))
        elif not turn.replied and turn.sent is not None:
            # Not sent: the TUI puts the text back in the input; a retry sends it once.
            await host.record.unsend(turn.sent, str(exc))
        yield TurnOver("error")
        return
    message, reasoning = reply.message(host.meter.counter.count_text)
    if reasoning is not None:
        yield reasoning
    turn.replied = True
    if reply.finish == PAUSED and not reply.calls:
        # The provider paused its own long-running work (searches): the reply goes back as it
        # is, last in the next request, and the provider finishes it there.
        await host.record.add(message if message.content else replace(message, content=""))
        yield NextStep()
        return
    if not reply.calls:
        await host.record.add(message if message.content else replace(message, content=""))
        if host.hooks is not None:
            again = await turn_hooks.stop(host.hooks, active=turn.stop_hook_active)
            for event in host.hooks.drain():
                yield event
            if again is not None:  # a Stop hook sends the agent back to work
                turn.stop_hook_active = True
                await host.record.add(user(again))
                yield NextStep()
                return
        yield TurnOver("done")
        return
    turn.pending, turn.answered = message, set()
    await host.record.add(message)
    # Paged readers must fit what is left of the window, not just their byte cap.
    room = max(0, host.measure(with_status=False).remaining) // max(1, len(reply.calls))
    async for item in run_calls(
        turn,
        reply,
        runner=host.runner,
        record=host.record,
        hooks=host.hooks,
        room=room,
        max_output_tokens=host.limits.max_output_tokens,
        deny_ends_turn=host.config.tools.deny_ends_turn,
        compaction=lambda instructions: host.compaction.run(
            host.config, host.turns, "tool", instructions, force=True, snapshot=False
        ),
    ):
        yield item
