"""A step's tool calls: run in order, each answered in the history, ending in the step's outcome.

Two calls are handled in named places rather than run: a call the output limit cut off
mid-arguments (`turn.truncated_call`: answered unrun, the model told why) and `compact_context`
(`compact_context` here: it compacts the very history that holds it, so its call and its result
must survive what it triggers). Several `task` calls of a step start at once
(agent/subagent_calls.py). A denial (when `[tools] deny_ends_turn`) or a hook saying `continue:
false` ends the turn, with every call after it answered unrun.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.agent import subagent_calls, wire
from agent_tui.agent.compactor import tool_instructions, tool_text
from agent_tui.agent.turn import NextStep, StepOutcome, TurnOver, TurnState, truncated_call
from agent_tui.base.messages import ToolCall, tool_result

if TYPE_CHECKING:
    from agent_tui.agent.history import SessionHistory
    from agent_tui.agent.reply import StreamedReply
    from agent_tui.agent.tool_runner import ToolRunner
    from agent_tui.hooks.runner import HookRunner

COMPACT_CONTEXT = "compact_context"
UNRUN = "[not run: the user denied an earlier call]"

Compaction = Callable[[str | None], AsyncIterator[ev.AgentEvent]]
"""Runs the session's compaction for the model (instructions) without saving a snapshot."""


async def run_calls(
    turn: TurnState,
    reply: StreamedReply,
    *,
    runner: ToolRunner,
    record: SessionHistory,
    hooks: HookRunner | None,
    room: int,
    max_output_tokens: int,
    deny_ends_turn: bool,
    compaction: Compaction,
) -> AsyncIterator[ev.AgentEvent | StepOutcome]:
    """Run `reply`'s calls (`room`: tokens each paged reader may fill); the outcome comes last."""
    calls = reply.calls
    # compact_context goes last, so the calls it keeps are all answered already.
    ordered = sorted(calls, key=lambda c: c.name == COMPACT_CONTEXT)
    parallel = subagent_calls.start_parallel(runner, ordered, room)
    for call in parallel:  # several task calls run at once: all start now
        yield ev.ToolCallStarted(call)
    stop: ev.StopReason | None = None
    for call in ordered:
        if call not in parallel:
            yield ev.ToolCallStarted(call)
        if reply.finish == "length" and not wire.arguments_complete(call):
            result, events = truncated_call(call, max_output_tokens)
            await record.add(result)
            turn.answered.add(call.id)
            for event in events:
                yield event
            continue
        if call.name == COMPACT_CONTEXT:
            async for event in compact_context(call, record, compaction):
                yield event
            turn.answered.add(call.id)
            continue
        async for item in subagent_calls.run_streaming(runner, call, room):
            if isinstance(item, ev.AgentEvent):
                yield item  # a sub-agent's, while the call runs
            else:
                run = item
        if hooks is not None:
            for event in hooks.drain():
                yield event
        await record.add(run.message)
        turn.answered.add(call.id)
        if run.ref is not None:
            turn.refs.append(run.ref)
        yield ev.ToolCallFinished(
            call,
            run.ref,
            run.is_error,
            run.summary,
            run.message.content or "",
            run.duration,
            run.outcome,
            run.display,
        )
        if runner.services.side.take_changed():
            yield ev.SideStateChanged.of(runner.services.side)
        if run.notice:
            yield ev.Notice(run.notice, code="denied" if run.denied else "info")
        if run.denied and deny_ends_turn:
            stop = "denied"
            break
        if run.stop is not None:  # a hook said `continue: false`
            yield ev.Notice(f"A hook stopped the turn: {run.stop or 'no reason given'}")
            stop = "hook"
            break
    await subagent_calls.settle(runner)
    turn.pending = None
    if stop is None:
        yield NextStep()
        return
    # The model waits for the user's direction: the calls after the stop are answered unrun.
    unrun = [c for c in calls if c.id not in turn.answered]
    if unrun:
        await record.add(*(tool_result(c, UNRUN, outcome="not_run") for c in unrun))
    yield TurnOver(stop)


async def compact_context(
    call: ToolCall, record: SessionHistory, compaction: Compaction
) -> AsyncIterator[ev.AgentEvent]:
    """The model called compact_context: its call and its result survive what it triggers."""
    # A placeholder answers the call while the chain runs, so the history it compacts is
    # well-formed; the real result replaces it after.
    provisional = tool_result(call, "[compacting…]", outcome="ok")
    await record.adopt([*record.messages, provisional])
    result = None
    async for event in compaction(tool_instructions(call)):
        if isinstance(event, ev.CompactionFinished):
            result = event.result
        yield event
    text = tool_text(result)
    final = tool_result(call, text, outcome="ok")
    history = [final if m.id == provisional.id else m for m in record.messages]
    if final not in history:
        history.append(final)
    await record.adopt(history, persist=[final], snapshot=bool(result and result.applied))
    yield ev.ToolCallFinished(call, None, False, "compacted", text, 0.0, "ok")
