"""Sub-agents: a `task` call runs a child session and answers with an envelope.

A child is an `AgentSession` built by the same factory (same store, its own meter, compaction and
offloading), stored with its parent's id. It shares the parent's permission policy — the same
rules, the same session grants, the same sandbox and `--yes` — so it can never widen them; its
tool list can only narrow the parent's. Its approval questions go to the parent's approver while
`CURRENT_AGENT` names it, so the question says which child asks.

What the parent gets back is one tool result, the envelope: state (completed / stopped with a
reason / error), a view of the final answer (at most `[agents] result_tokens`; the whole answer is
stored with a ref), usage, cost, duration and the child's transcript ref, so anything the child
saw or said stays readable with read_result / grep_result / recall after it ends.

Several `task` calls of one step start at once (`start_parallel`, at most `[agents]
max_parallel` running); while the loop waits on any call, the children's events flow up the
parent's stream (`run_streaming`) as `SubagentEvent`s, and each end is one `SubagentFinished`
(`Subagents.finished`). The child's own stop fires the SubagentStop hooks (`_create` names its
stop so), which send it back to work the way Stop hooks send the agent. How one child's turn ended
and its envelope are read off its events in agent/subagent_turn.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from agent_tui.agent import events as ev
from agent_tui.agent.current_agent import CURRENT_AGENT
from agent_tui.agent.envelope import Envelope, cut_answer
from agent_tui.agent.subagent_turn import TASK, ChildTurn, envelope_for
from agent_tui.agent.task_tool import TaskTool, describe
from agent_tui.base.messages import TokenUsage
from agent_tui.tools.base import ToolOutput

if TYPE_CHECKING:
    from agent_tui.agent.definitions import AgentDefinition, Definitions
    from agent_tui.agent.session_port import SubagentSession as AgentSession  # not the class: no cycle
    from agent_tui.agent.tool_runner import ToolRun, ToolRunner
    from agent_tui.base.messages import Message, ToolCall
    from agent_tui.config import Config
    from agent_tui.tools.base import ToolContext
    from agent_tui.tools.registry import ToolRegistry


class ChildHost(Protocol):
    """What the child manager needs of the app's services (factory.AppServices satisfies it):
    where definitions come from and a way to build a child's session. Named here so this module
    does not import the factory that builds it."""

    workspace: Path
    definitions: Definitions

    async def child_session(
        self,
        parent: AgentSession,
        *,
        definition: AgentDefinition | None = None,
        depth: int,
        title: str | None,
        history: list[Message],
        prompt: str,
    ) -> AgentSession: ...


log = logging.getLogger(__name__)


CHILD_PROMPT = (
    "You are a sub-agent: another agent delegated the task below to you. Work on it with your "
    "tools; nobody will answer questions. End with one final answer that stands on its own — it "
    "is all the other agent sees of your work (your transcript stays readable by reference)."
)

FinishHook = Callable[[ev.SubagentFinished], Awaitable[None] | None]


class Subagents:
    """One per session: starts its children, caps how many run at once, passes their events up
    and rolls their usage and cost into the parent's totals (kept apart here as well)."""

    def __init__(
        self, services: ChildHost, config: Config, definitions: Definitions, *, depth: int = 0
    ) -> None:
        self.services = services
        self.config = config
        self.definitions = definitions
        self.depth = depth
        self.parent: AgentSession | None = None
        """The session this manager belongs to (it adopts the manager as it is built)."""
        self.semaphore = asyncio.Semaphore(config.agents.max_parallel)
        self.events: asyncio.Queue[ev.AgentEvent] = asyncio.Queue()
        """Children's events waiting to be passed up the parent's stream."""
        self.usage = TokenUsage()
        """What the children used (already part of the parent's `usage_total`)."""
        self.cost: float | None = 0.0
        self.children: list[str] = []
        self.on_finish: list[FinishHook] = []
        """Called with every SubagentFinished."""
        self._started: dict[str, asyncio.Task[ToolRun]] = {}
        self._cancelled: dict[str, str] = {}
        """Envelopes of children cancelled mid-call, for the parent's closing tool results."""

    def adopt(self, session: AgentSession) -> None:
        """Called by the session that owns this manager, as it is built: it is the parent of the
        manager's children."""
        self.parent = session

    @property
    def may_spawn(self) -> bool:
        return self.depth < self.config.agents.max_depth

    # -- the tool ------------------------------------------------------------------------

    def tool_description(self) -> str:
        return describe(self.definitions, self.config)

    async def run_task(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        parent = self.parent
        if parent is None or parent.store is None:
            return ToolOutput.error("sub-agents need the session store, which is unavailable")
        if not self.may_spawn:
            return ToolOutput.error(
                f"a sub-agent cannot start sub-agents here ([agents] max_depth = {self.config.agents.max_depth})"
            )
        description = " ".join(str(args.get("description") or "").split())[:80] or "sub-agent"
        prompt = str(args.get("prompt") or "").strip()
        if not prompt:
            return ToolOutput.error("task needs a `prompt`: the brief the sub-agent works from")
        mode = str(args.get("mode") or "fresh")
        if mode not in ("fresh", "fork"):
            return ToolOutput.error(f'mode must be "fresh" or "fork", got {mode!r}')
        definition = None
        if args.get("agent"):
            definition = self.definitions.get(str(args["agent"]))
            if definition is None:
                known = ", ".join(sorted(self.definitions.agents)) or "none are defined"
                return ToolOutput.error(f"no agent named {args['agent']!r} (known: {known})")
        started = time.monotonic()
        async with self.semaphore:
            child = await self._create(parent, definition, mode, ctx.call_id, description)
            try:
                envelope = await self._drive(child, parent, ctx, description, prompt, started)
            finally:
                await child.close()
        view, cut = self._view(child, envelope.answer)
        return ToolOutput(
            text=envelope.render(view, cut),
            is_error=envelope.state == "error",
            summary=f"{envelope.state}{'' if envelope.reason is None else ': ' + envelope.reason} · "
            f"{envelope.duration:.1f} s · {envelope.transcript_short}",
            meta={"subagent": envelope.session_id, "transcript": envelope.transcript_uri},
        )

    async def _create(
        self, parent: AgentSession, definition: AgentDefinition | None, mode: str, call_id: str, title: str
    ) -> AgentSession:
        history: list[Message] = []
        if mode == "fork":
            history = _fork_history(parent.history, call_id)
        child = await self.services.child_session(
            parent,
            definition=definition,
            depth=self.depth + 1,
            title=title,
            history=history,
            prompt=CHILD_PROMPT,
        )
        self.children.append(child.session_id)
        if child.hooks is not None:  # its stop is a SubagentStop: a blocking hook sends it back to work
            child.hooks.subagent = True
        if history:
            await child.save_snapshot()  # resume starts from the fork, the transcript holds the child's own
        return child

    async def _drive(
        self,
        child: AgentSession,
        parent: AgentSession,
        ctx: ToolContext,
        description: str,
        prompt: str,
        started: float,
    ) -> Envelope:
        token = CURRENT_AGENT.set(description)
        seen = ChildTurn()
        turn = cast("AsyncGenerator[ev.AgentEvent, None]", child.run_turn(prompt))
        try:
            async for event in turn:
                self._forward(child, parent, ctx.call_id, description, event)
                if not seen.see(event):
                    break
        except asyncio.CancelledError:
            seen.cancelled()
            envelope = await self._envelope(child, parent, ctx, description, seen, started)
            self._cancelled[ctx.call_id] = envelope.render(self._view(child, envelope.answer)[0], False)
            await self.finished(envelope, parent, ctx.call_id)
            raise
        finally:
            await turn.aclose()
            CURRENT_AGENT.reset(token)
        seen.ended()
        envelope = await self._envelope(child, parent, ctx, description, seen, started)
        await self.finished(envelope, parent, ctx.call_id)
        return envelope

    async def _envelope(
        self,
        child: AgentSession,
        parent: AgentSession,
        ctx: ToolContext,
        description: str,
        seen: ChildTurn,
        started: float,
    ) -> Envelope:
        envelope = await envelope_for(child, ctx, description, seen, started)
        self._roll_up(parent, child)
        return envelope

    def _roll_up(self, parent: AgentSession, child: AgentSession) -> None:
        self.usage = self.usage + child.usage_total
        parent.usage_total = parent.usage_total + child.usage_total
        cost = child.cost_total
        self.cost = None if cost is None or self.cost is None else self.cost + cost
        parent.cost_total = None if cost is None or parent.cost_total is None else parent.cost_total + cost

    def _view(self, child: AgentSession, answer: str) -> tuple[str, bool]:
        return cut_answer(answer, self.config.agents.result_tokens, child.meter.counter.count_text)

    # -- events ----------------------------------------------------------------------------

    def _forward(
        self, child: AgentSession, parent: AgentSession, call_id: str, description: str, event: ev.AgentEvent
    ) -> None:
        if isinstance(event, (ev.SubagentEvent, ev.SubagentFinished)):
            self.events.put_nowait(event)  # a grandchild's: it names its own sessions
        else:
            self.events.put_nowait(
                ev.SubagentEvent(child.session_id, parent.session_id, call_id, description, event)
            )

    async def finished(self, envelope: Envelope, parent: AgentSession, call_id: str) -> None:
        """The one place a child's end is announced: the event up the stream, then every
        `on_finish` callback. A failing one is logged, never fatal. (Configured SubagentStop
        hooks fire inside the child's turn, where blocking sends it back to work.)"""
        event = ev.SubagentFinished(
            session_id=envelope.session_id,
            parent_session_id=parent.session_id,
            call_id=call_id,
            description=envelope.description,
            state=envelope.state,
            reason=envelope.reason,
            transcript=envelope.transcript_uri,
            answer_ref=envelope.answer_ref,
            usage=envelope.usage,
            cost=envelope.cost,
            duration=envelope.duration,
        )
        self.events.put_nowait(event)
        for hook in list(self.on_finish):
            try:
                result = hook(event)
                if result is not None:
                    await result
            except Exception:
                log.exception("an on_finish callback failed")

    def drain(self) -> list[ev.AgentEvent]:
        out: list[ev.AgentEvent] = []
        while not self.events.empty():
            out.append(self.events.get_nowait())
        return out

    # -- the loop's side: parallel calls, events while waiting, cancellation -----------------

    def start_parallel(self, runner: ToolRunner, calls: list[ToolCall], room: int | None) -> list[ToolCall]:
        """Start every `task` call of a step at once (the semaphore caps how many run)."""
        tasks = [c for c in calls if c.name == TASK]
        if len(tasks) < 2:
            return []
        for call in tasks:
            self._started[call.id] = asyncio.create_task(
                runner.run(call, room_tokens=room), name=f"agent-tui-subagent-{call.id}"
            )
        return tasks

    async def settle(self) -> None:
        """Cancel and wait for started calls the loop will not collect (a denial ended the step,
        the turn was cancelled): their children close their transcripts first."""
        left = list(self._started.values())
        self._started.clear()
        for task in left:
            task.cancel()
        if left:
            await asyncio.gather(*left, return_exceptions=True)

    def cancelled_text(self, call_id: str) -> str | None:
        return self._cancelled.pop(call_id, None)


def for_session(
    services: ChildHost,
    config: Config,
    registry: ToolRegistry,
    *,
    depth: int,
    tool_names: tuple[str, ...] | None,
) -> Subagents:
    """The session's manager; registers `task` when this depth may start children, and narrows
    the registry to `tool_names` (a definition's list can only take tools away)."""
    agents = Subagents(services, config, services.definitions, depth=depth)
    if agents.may_spawn:
        registry.register(TaskTool(agents))
    if tool_names is not None:
        for name in registry.names():
            # The declared lookups of its own outputs change nothing: a narrowed agent keeps them.
            tool = registry.get(name)
            declared = tool.spec.capabilities if tool is not None else None
            if name not in tool_names and not (declared is not None and declared.reads_session):
                registry.unregister(name)
    return agents


def _fork_history(history: list[Message], call_id: str) -> list[Message]:
    """The parent's history before the step that made this call: wire-valid, since that step's
    calls are still unanswered."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "assistant" and any(c.id == call_id for c in message.tool_calls):
            return list(history[:index])
    return list(history)


def child_config(config: Config, definition: AgentDefinition | None) -> Config:
    """The child's config: the parent's, with the definition's model and turn limit, and a
    denial told to the child rather than ending its turn (nobody converses with a child)."""
    cfg = replace(config, tools=replace(config.tools, deny_ends_turn=False))
    if definition is not None and definition.max_turns is not None:
        cfg = replace(cfg, agent=replace(cfg.agent, max_steps=definition.max_turns))
    if definition is not None and definition.model is not None:
        cfg = replace(cfg, model=replace(cfg.model, name=definition.model))
    return cfg
