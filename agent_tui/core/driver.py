"""A session driven by operations and observed through its events: `submit(op)` in, the event
log out. Every front end that speaks the protocol — headless `run`, the server, an attached TUI —
holds one; the handlers below are the one place each operation is carried out.

Long work (a turn, a compaction, a `!command`) runs in one task at a time; its events are
appended to the log as they come and a `work_finished` event closes it. While it runs, only
`interrupt`, `approve` and read-only commands are taken; anything else is refused with an
`operation_refused` event saying why. An approval the session asks for becomes an
`approval_requested` event; it waits for an `approve` operation and is denied, visibly, after
`approval_timeout` seconds: the driver never grants one by itself.

A front end that must act on an event before the session goes on gives a `sink`: it is awaited
with each event as it is logged, and the work waits for it before taking the next event. So an
editor is shown a tool call (and for bash has its terminal made) before the tool runs, and a
screen posts each event in order, exactly as when it iterated the session itself.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.agent.current_agent import CURRENT_AGENT
from agent_tui.agent.events import AgentEvent
from agent_tui.agent.window import get_ready
from agent_tui.base.errors_text import one_line
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.commands import BY_NAME, Front, Runs, parse
from agent_tui.core.event_log import EventLog
from agent_tui.core.replies import Reply, Unavailable
from agent_tui.extensions.commands import discover
from agent_tui.policy.permission_modes import LABELS
from agent_tui.tools.approval_request import ApprovalDecision, ApprovalRequest, Approver

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.config import Config
    from agent_tui.core.replies import Reply
    from agent_tui.extensions.commands import CustomCommand

log = logging.getLogger(__name__)

APPROVAL_TIMEOUT = 300.0
"""Seconds an approval waits for a client before it is denied."""


Sink = Callable[[int, AgentEvent], Awaitable[None]]
"""Awaited with each event (and its id) as it is logged; the work goes on when it returns."""


class SessionDriver:
    def __init__(
        self,
        services: AppServices,
        session: AgentSession | None = None,
        *,
        approval_timeout: float = APPROVAL_TIMEOUT,
        events: EventLog | None = None,
        approver: Approver | None = None,
        sink: Sink | None = None,
    ) -> None:
        self.services = services
        self.session = session
        self.approval_timeout = approval_timeout
        self.log = events or EventLog()
        self._task: asyncio.Task[None] | None = None
        self._pending: dict[str, asyncio.Future[ApprovalDecision]] = {}
        self.asked: dict[str, pe.ApprovalRequested] = {}
        """The approvals waiting for an answer, by request id (a client that attaches late asks)."""
        self._ids = itertools.count(1)
        self.approver: Approver = approver or self.ask
        """What a session this driver opens asks (`ask`, unless the front end answers itself)."""
        self.sink = sink

    # -- what a command's effect may use (core/command_host.py) --------------------------------

    @property
    def workspace(self) -> Path:
        return self.session.workspace if self.session is not None else self.services.workspace

    def use_config(self, config: Config) -> None:
        self.services = dataclasses.replace(self.services, config=config)

    def custom_commands(self) -> list[CustomCommand]:

        trusted = self.services.config.provenance.folder_trusted
        return list(discover(self.workspace, trusted).commands.values())

    # -- driving ---------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    async def publish(self, event: AgentEvent) -> int:
        """Log `event` and hand it to the sink before anything else happens."""
        event_id = self.log.append(event)
        if self.sink is not None:
            await self.sink(event_id, event)
        return event_id

    async def submit(self, op: ops.Op) -> None:
        """Carry out `op`; what it did (or why it could not) arrives as events."""
        handler = HANDLERS[type(op)]
        if self.busy and type(op) not in WHILE_BUSY:
            await self.publish(
                pe.OperationRefused(op.type, "busy: work is running (interrupt it or wait for work_finished)")
            )
            return
        try:
            await handler(self, op)
        except Exception as exc:  # a failed operation is one event, the session goes on
            log.exception("operation %s failed", op.type)
            await self.publish(pe.OperationRefused(op.type, one_line(exc, 300)))

    async def drive(self, op: ops.Op) -> AsyncIterator[AgentEvent]:
        """Submit `op` and yield its events until its work is finished (or it was refused)."""
        start = self.log.last_id
        await self.submit(op)
        async for _, event in self.log.follow(start):
            yield event
            if pe.ends(op, event):
                return

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        """The session's approver: an event, then the client's `approve` or a denial on timeout."""
        request_id = f"a{next(self._ids)}"
        answer: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = answer
        asked = self.asked[request_id] = pe.ApprovalRequested(
            request_id,
            request.tool,
            request.arguments,
            request.preview,
            request.suggested_prefix,
            request.sandbox,
            request.once_only,
            request.protected,
            self.approval_timeout,
            CURRENT_AGENT.get(),  # set in a sub-agent's task: the question names the child
        )
        await self.publish(asked)
        try:
            return await asyncio.wait_for(asyncio.shield(answer), self.approval_timeout)
        except TimeoutError:
            await self.publish(pe.ApprovalResolved(request_id, "deny", "timeout"))
            return ApprovalDecision(
                "deny", reason=f"No one answered the approval within {self.approval_timeout:g} s; denied."
            )
        finally:
            self._pending.pop(request_id, None)
            self.asked.pop(request_id, None)

    def _start(self, name: str, events: Callable[[], AsyncIterator[AgentEvent]]) -> None:
        async def work() -> None:
            state, message = "done", None
            try:
                async for event in events():
                    await self.publish(event)
            except asyncio.CancelledError:
                state = "interrupted"
                raise
            except Exception as exc:
                log.exception("%s failed", name)
                state, message = "failed", one_line(exc, 300) or type(exc).__name__
            finally:
                await self.publish(pe.WorkFinished(name, state, message))  # type: ignore[arg-type]

        self._task = asyncio.create_task(work(), name=f"driver-{name}")

    def require(self) -> AgentSession:
        if self.session is None:
            raise RuntimeError("no session is open")
        return self.session

    async def close(self) -> None:
        """End the running work (its commands with it) and the session."""
        await _interrupt(self, ops.Interrupt())
        if self.session is not None:
            await self.session.close()


async def _send(driver: SessionDriver, op: ops.Send) -> None:

    session = driver.require()
    pictures = [(picture.name, picture.decoded()) for picture in op.images]  # refused: not base64
    session.record.pending_images = pictures  # the next user message carries them (agent/history.py)
    from agent_tui.extensions.invoke import turn_events  # lazy: start-up (no session in the first frame)

    driver._start(op.type, lambda: turn_events(session, op.text))


async def _compact(driver: SessionDriver, op: ops.Compact) -> None:
    session = driver.require()
    driver._start(op.type, lambda: session.compact(op.instructions, reason="forced"))


async def _review(driver: SessionDriver, op: ops.Review) -> None:
    session = driver.require()
    from agent_tui.agent.review import review_events  # lazy: start-up (no session in the first frame)

    driver._start(op.type, lambda: review_events(session, op.base))


async def _shell(driver: SessionDriver, op: ops.Shell) -> None:
    session = driver.require()
    driver._start(op.type, lambda: session.run_user_command(op.command))


async def _prepare(driver: SessionDriver, op: ops.Prepare) -> None:
    if driver.session is not None:  # still opening: the next key prepares
        await get_ready(driver.session)


async def _interrupt(driver: SessionDriver, op: ops.Interrupt) -> None:
    waiting = [(rid, answer) for rid, answer in driver._pending.items() if not answer.done()]
    task = driver._task
    if task is not None and not task.done():
        task.cancel()  # first: a denial answered before it would let the turn go on
        await asyncio.wait([task])
    for request_id, answer in waiting:
        if not answer.done():
            answer.set_result(ApprovalDecision("deny"))
        driver.asked.pop(request_id, None)
        await driver.publish(pe.ApprovalResolved(request_id, "deny", "interrupt"))


async def _approve(driver: SessionDriver, op: ops.Approve) -> None:
    answer = driver._pending.get(op.request_id)
    if answer is None or answer.done():
        await driver.publish(pe.OperationRefused(op.type, f"no approval {op.request_id!r} is waiting"))
        return
    answer.set_result(ApprovalDecision(op.action, prefix=op.prefix, reason=op.reason))
    driver.asked.pop(op.request_id, None)
    await driver.publish(pe.ApprovalResolved(op.request_id, op.action, "client"))


async def _reply(driver: SessionDriver, reply: Reply) -> None:
    await driver.publish(pe.CommandReplied.of(reply))


async def _effect(driver: SessionDriver, name: str, argument: str) -> None:

    effect = BY_NAME[name].effect
    assert effect is not None
    try:
        await _reply(driver, await effect(driver, argument))
    except Unavailable as exc:
        await _reply(driver, Reply(f"/{name}", text=str(exc), level="warning"))


async def _command(driver: SessionDriver, op: ops.RunCommand) -> None:

    found = parse(op.text, Front.RUN)
    if found is None:
        await driver.publish(pe.OperationRefused(op.type, f"not a command offered here: {op.text[:80]!r}"))
    elif driver.busy and found[0].runs is not Runs.NOW:
        await driver.publish(pe.OperationRefused(op.type, f"/{found[0].name} waits for the running work"))
    else:
        await _effect(driver, found[0].name, found[1])


async def _set_effort(driver: SessionDriver, op: ops.SetEffort) -> None:
    await _effect(driver, "effort", op.level)


async def _undo(driver: SessionDriver, op: ops.Undo) -> None:
    await _effect(driver, "undo", f"{op.turns}{' --force' if op.force else ''}")


async def _rename(driver: SessionDriver, op: ops.Rename) -> None:
    await _effect(driver, "rename", op.title)


async def _remember(driver: SessionDriver, op: ops.Remember) -> None:
    await _effect(driver, "remember", op.text)


async def _activate_skill(driver: SessionDriver, op: ops.ActivateSkill) -> None:
    await _effect(driver, "skill", op.name)


async def _rewind(driver: SessionDriver, op: ops.Rewind) -> None:

    session = driver.require()
    from agent_tui.agent.rewind import rewind_points  # lazy: start-up (no session in the first frame)

    point = next((p for p in await rewind_points(session) if p.seq == op.seq), None)
    if point is None:
        await driver.publish(pe.OperationRefused(op.type, f"no user message numbered {op.seq} to rewind to"))
        return
    report = await session.rewind(point, op.scope)
    said = report.describe()
    if op.scope != "files":
        from agent_tui.extensions.skill_resume import (
            realign_after_rewind,
        )  # lazy: start-up (no session in the first frame)

        if off := await realign_after_rewind(session):  # a skill loaded after the point is off again
            said += f" Skill {', '.join(off)}, loaded after that point, is off again."
    await driver.publish(pe.CommandReplied("/rewind", said, "info"))


async def _fork(driver: SessionDriver, op: ops.Fork) -> None:
    from agent_tui.store.forks import fork_session  # lazy: start-up

    session = driver.require()
    info = await fork_session(driver.services.store.sessions, session.session_id, op.before, op.title)
    await driver.publish(pe.SessionForked(info.id, info.title))


async def _set_model(driver: SessionDriver, op: ops.SetModel) -> None:

    old = driver.require()
    config = driver.services.config
    from agent_tui.llm.models import switched_model  # lazy: start-up (no session in the first frame)

    settings, _left = switched_model(config.model, op.name)
    services = dataclasses.replace(driver.services, config=dataclasses.replace(config, model=settings))
    session = await services.resume_session(old.session_id, driver.approver)  # refused: nothing changed
    session.keep_background_of(old)
    await old.close()
    await services.store.leases.acquire(session.session_id)  # closing the old one gave it back
    driver.session, driver.services = session, services
    await driver.publish(pe.SessionReplaced(session.session_id, session.model))


async def _set_mode(driver: SessionDriver, op: ops.SetMode) -> None:

    session = driver.require()
    session.set_mode(op.mode)
    await session.side.save()  # a resumed session keeps it
    await driver.publish(pe.CommandReplied("Permission mode", f"Permission mode: {LABELS[op.mode]}.", "info"))


Handler = Callable[[SessionDriver, Any], Awaitable[None]]

HANDLERS: dict[type[ops.Operation], Handler] = {
    ops.Send: _send,
    ops.Compact: _compact,
    ops.SetModel: _set_model,
    ops.SetMode: _set_mode,
    ops.SetEffort: _set_effort,
    ops.Undo: _undo,
    ops.Rewind: _rewind,
    ops.Fork: _fork,
    ops.Rename: _rename,
    ops.Remember: _remember,
    ops.ActivateSkill: _activate_skill,
    ops.RunCommand: _command,
    ops.Review: _review,
    ops.Shell: _shell,
    ops.Prepare: _prepare,
    ops.Interrupt: _interrupt,
    ops.Approve: _approve,
}
"""One handler per operation (tests/test_protocol.py fails when an operation has none)."""

WHILE_BUSY = frozenset({ops.Interrupt, ops.Approve, ops.RunCommand, ops.Fork, ops.SetMode, ops.Prepare})
"""What is taken while work runs; a command that must wait says so itself."""
