"""A tab's link to its `SessionDriver` (core/driver.py): the driver, built on first use and handed
the tab's current session and services; its events, posted to the tab in order; the approval
questions among them, asked through the App's modal.

An object the view owns (`SessionView.driving`); it sees the view through `DrivenTab`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from textual.message import Message

from agent_tui.agent.current_agent import CURRENT_AGENT
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.event_log import EventLog
from agent_tui.frontends.tui.events import AgentEventMessage
from agent_tui.frontends.tui.tab_controller import tab_label

if TYPE_CHECKING:
    from agent_tui.agent import events as ev
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.core.driver import SessionDriver
    from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest

TAB_EVENTS_KEPT = 1_000  # for a follower beside the screen: the screen renders through the sink

Approve = Callable[["ApprovalRequest", str], Awaitable["ApprovalDecision"]]


@dataclasses.dataclass
class Awaiting(Message):
    """An approval is asked (`tool`) or answered (None). A message, so it is shown after the
    ToolCallStarted the driver handed over before asking."""

    tool: str | None


class DrivenTab(Protocol):
    """What the link uses of `SessionView`: the session it drives and where its events go."""

    number: int

    @property
    def services(self) -> AppServices | None: ...
    @property
    def session(self) -> AgentSession | None: ...
    @property
    def asking(self) -> str:
        """What the tab is doing, as an approval names the request asking."""

    def post_message(self, message: Message) -> bool: ...


class TabDriving:
    def __init__(self, tab: DrivenTab, approve: Approve) -> None:
        self.tab = tab
        self._approve = approve
        self.current: SessionDriver | None = None
        """The driver once built (None before the tab's first operation)."""
        self._prepared: AgentSession | None = None
        self._preparing: asyncio.Task[None] | None = None
        self._wanted = False
        """A key came while no session was open yet."""

    def driver(self) -> SessionDriver:
        """What the tab's operations are submitted to; it drives the tab's current session."""

        services, session = self.tab.services, self.tab.session
        assert services is not None
        if self.current is None:
            # The tab renders through the sink; the log only serves a follower that keeps up.
            log_ = EventLog(keep=TAB_EVENTS_KEPT)
            from agent_tui.core.driver import SessionDriver  # lazy: start-up (built on the first operation)

            self.current = SessionDriver(services, session, sink=self._deliver, events=log_)
        self.current.services, self.current.session = services, session  # after /model, /new
        return self.current

    def prepare(self) -> None:
        """The user is writing (a key, a paste): the `prepare` operation, once per session the
        tab shows; a key typed while the tab opens prepares the session once it is open."""
        session = self.tab.session
        if session is None:
            self._wanted = True  # still opening: `opened` prepares it
            return
        if session is self._prepared:
            return
        self._prepared, self._wanted = session, False
        # A task of its own: the key is not held up by it (it loads the HTTP client, asks the server).
        self._preparing = asyncio.get_running_loop().create_task(self.driver().submit(ops.Prepare()))

    def opened(self) -> None:
        """The tab's session is open: prepared now if the user already typed."""
        if self._wanted:
            self.prepare()

    async def _deliver(self, event_id: int, event: ev.AgentEvent) -> None:
        if isinstance(event, pe.ApprovalRequested):  # asked in the asking call's task (a child's too)
            decision = await self.approve(event.question())
            await self.driver().submit(ops.Approve(event.request_id, decision.action, decision.prefix))
        else:
            self.tab.post_message(AgentEventMessage(event))  # in order with the Awaiting messages

    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        """An `approval_requested` event's question: the App shows the modal. Meanwhile
        the tool line and the working line say "awaiting approval"; an allowed call's clock
        starts when the user answers, so their think time is not the tool's run time."""

        self.tab.post_message(Awaiting(request.tool))
        where = f"tab {self.tab.number} · {tab_label(self.tab.asking)}"  # the request asking
        if (child := CURRENT_AGENT.get()) is not None:
            where += f" · sub-agent: {child}"  # a child of this tab's session asks
        try:
            return await self._approve(request, where)
        finally:
            self.tab.post_message(Awaiting(None))
