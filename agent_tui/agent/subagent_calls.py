"""The agent loop's side of sub-agents: several `task` calls of a step start at once, the
children's events flow up the parent's stream while any call runs, and a cancelled turn waits for
its children to close and say `cancelled`. session.py calls these; the substance is the session's
`Subagents` manager (agent/subagents.py), reached through its tool runner.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.agent.subagent_turn import TASK
from agent_tui.agent.subagents import Subagents

if TYPE_CHECKING:
    from agent_tui.agent.session_port import WindowOwner
    from agent_tui.agent.tool_runner import ToolRun, ToolRunner
    from agent_tui.base.messages import ToolCall


def manager_of(runner: ToolRunner) -> Subagents | None:
    agents = getattr(runner.services, "agents", None)
    return agents if isinstance(agents, Subagents) else None


def start_parallel(runner: ToolRunner, calls: list[ToolCall], room: int | None) -> list[ToolCall]:
    """The calls started at once (several `task` calls of one step), for the loop to announce."""
    agents = manager_of(runner)
    if agents is not None and agents.may_spawn:
        return agents.start_parallel(runner, calls, room)
    return []


async def run_streaming(
    runner: ToolRunner, call: ToolCall, room: int | None
) -> AsyncIterator[ev.AgentEvent | ToolRun]:
    """Run one call (or collect the one `start_parallel` started) and, while it runs, pass the
    children's events up; the ToolRun comes last. Cancelling cancels the call and its child."""
    agents = manager_of(runner)
    if agents is None:
        yield await runner.run(call, room_tokens=room)
        return
    task = agents._started.pop(call.id, None)
    if task is None:
        if call.name != TASK and not agents._started:
            yield await runner.run(call, room_tokens=room)
            for event in agents.drain():
                yield event
            return
        task = asyncio.create_task(runner.run(call, room_tokens=room), name=f"agent-tui-call-{call.id}")
    try:
        while True:
            for event in agents.drain():
                yield event
            if task.done():
                break
            getter = asyncio.ensure_future(agents.events.get())
            try:
                await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not getter.done():
                    getter.cancel()
            if getter.done() and not getter.cancelled():
                yield getter.result()  # the oldest: the queue was empty when it was asked for
        for event in agents.drain():
            yield event
        yield task.result()
    except BaseException:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        raise


async def settle(runner: ToolRunner) -> None:
    agents = manager_of(runner)
    if agents is not None:
        await agents.settle()


def cancelled_text(runner: ToolRunner, call_id: str) -> str | None:
    agents = manager_of(runner)
    return agents.cancelled_text(call_id) if agents is not None else None


def window_share(session: WindowOwner) -> str | None:
    """What /context says of the session's children: what their envelopes hold of this window
    (all a child costs it), and their own usage and cost, apart; None without children."""
    envelopes = [m for m in session.history if m.role == "tool" and m.name == TASK]
    agents = manager_of(session.runner)
    ran = len(agents.children) if agents is not None else 0
    if not envelopes and not ran:
        return None
    count = session.meter.counter.count_message
    tokens = sum(count(m) for m in envelopes)
    line = f"Sub-agents: {len(envelopes)} envelope(s) in this window, {tokens:,} tokens"
    if agents is not None and ran:
        cost = "unknown cost" if agents.cost is None else f"${agents.cost:.4f}"
        line += (
            f" · {ran} child session(s) in this run used {agents.usage.total:,} tokens "
            f"in their own windows ({cost}, included in the session's)"
        )
    return line
