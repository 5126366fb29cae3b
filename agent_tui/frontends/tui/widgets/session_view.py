"""One tab: a session with its chat, meter, queue and input, running its own turns.

The tab drives its session as every front end does: a send, /compact, `!command` and Esc become
operations (core/ops.py) submitted to the tab's own `SessionDriver`, so two tabs' turns run side
by side. The driver hands the tab each event, which it posts to itself (in order, before the
session goes on) and renders. What a send, an event or finished work means — the queue, a failed
prompt put back, tool lines, the spinner — is decided by the tab's `TabController`
(frontends/tui/tab_controller.py); this view applies the operations it returns, in order (its widgets
through `TabRenderer`). Its other collaborators are objects it owns, each seeing the view through
a narrow protocol: `keys` (tab_keys.py), `commands`, what slash commands may ask of the tab
(tab_host.py), `opening`, how it comes to hold a session (tab_opening.py), and `driving`, its
driver and the approvals its events ask (tab_driving.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar, assert_never

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.worker import Worker, WorkerState

from agent_tui.agent import events as ev
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.frontends.tui import slash
from agent_tui.frontends.tui import tab_ops as op
from agent_tui.frontends.tui.events import AgentEventMessage
from agent_tui.frontends.tui.tab_controller import Outcome, TabController, WorkerEnd
from agent_tui.frontends.tui.tab_controller import tab_label as tab_label  # where tests and the App find it
from agent_tui.frontends.tui.widgets import session_opening as opening
from agent_tui.frontends.tui.widgets.chat import ChatPane
from agent_tui.frontends.tui.widgets.child_lines import ChildLine
from agent_tui.frontends.tui.widgets.find_bar import FindBar
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.mode_line import ModeLine
from agent_tui.frontends.tui.widgets.prompt import PromptArea, PromptInput
from agent_tui.frontends.tui.widgets.status import NoModelPanel, QueuePanel, WorkingLine
from agent_tui.frontends.tui.widgets.status_line import StatusLineBar
from agent_tui.frontends.tui.widgets.tab_driving import Approve, Awaiting, TabDriving
from agent_tui.frontends.tui.widgets.tab_host import TabCommands
from agent_tui.frontends.tui.widgets.tab_keys import TabKeys
from agent_tui.frontends.tui.widgets.tab_opening import TabOpener
from agent_tui.frontends.tui.widgets.tab_render import TabRenderer
from agent_tui.policy.permission_modes import next_mode

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.context.budget import ContextBudget
    from agent_tui.core.driver import SessionDriver
    from agent_tui.frontends.tui.command_host import AppActions
    from agent_tui.frontends.tui.widgets.chat_items import AgentItem

log = logging.getLogger(__name__)

WORK_NAMES = {
    ops.Send.type: "run_turn",
    ops.Shell.type: "run_command",
    ops.Compact.type: "run_compact",
    ops.Review.type: "run_review",
}
"""The operations whose work the tab shows as running, by the name its failures are told with."""
OUTCOMES: dict[str, Outcome] = {"done": "success", "failed": "error", "interrupted": "cancelled"}

ServicesSource = Callable[[], Awaitable["AppServices | None"]]


class SessionView(Vertical):
    """Owns one AgentSession (or none, when no model is configured)."""

    BINDINGS: ClassVar = [
        Binding("ctrl+b", "to_background", "to background", show=False),
        Binding("ctrl+f", "find", "find in chat", key_display="^F", show=False),
        Binding("shift+tab", "cycle_mode", "mode: default → accept edits → plan", show=False),
    ]

    @dataclasses.dataclass
    class TitleChanged(Message):
        view: SessionView
        title: str

    @dataclasses.dataclass
    class TasksChanged(Message):
        """A background command of this tab started or ended (the running count changes)."""

        view: SessionView

    @dataclasses.dataclass
    class BusyChanged(Message):
        """The tab started or finished work (the App marks a busy tab's label)."""

        view: SessionView

    def __init__(
        self,
        services: ServicesSource,
        approve: Approve,
        *,
        number: int,
        actions: AppActions,
        session_id: str | None = None,
        continue_: bool = False,
    ) -> None:
        super().__init__(classes="session-view")
        self.actions = actions
        """The App's screens and switches, for the slash commands (frontends/tui/command_host.py)."""
        self.number = number
        self.services: AppServices | None = None
        self.session: AgentSession | None = None
        self._start = (session_id, continue_)
        self.controller = TabController()
        """The tab's rules (queue, busy, failed prompts, tool lines): this view applies its
        operations and runs the workers it asks for."""
        self.renderer = TabRenderer(self, lambda: self.session.session_id if self.session else None)
        self._worker: Worker[None] | None = None
        """The tab's own worker (opening a session); the session's work runs in the driver."""
        self._interrupting: asyncio.Task[None] | None = None
        self.commands = TabCommands(self)
        """The tab as its slash commands see it (the `TabCommandHost`)."""
        self.opening = TabOpener(self, services)
        self.keys = TabKeys(self)
        self.driving = TabDriving(self, approve)

    def compose(self) -> ComposeResult:
        yield ChatPane(id="chat")
        yield NoModelPanel(id="no-model")
        yield WorkingLine(id="working")
        yield QueuePanel(id="queue")
        yield ModeLine(id="mode")
        yield ContextMeter(id="meter")
        yield StatusLineBar(id="status-line")
        yield FindBar(id="find")
        yield PromptArea(id="prompt-area")

    async def action_cycle_mode(self) -> None:
        """Shift+Tab: default → accept edits → plan (permission_modes.py), the `set_mode`
        operation (taken while work runs); the line shows it."""
        if self.session is None:
            return

        await self.commands.run_operation(ops.SetMode(next_mode(self.session.mode)))
        self.query_one(ModeLine).show_mode(self.session.mode)

    @property
    def busy(self) -> bool:
        """A turn, compaction or opening runs in this tab."""
        return self.controller.busy

    @property
    def title(self) -> str:
        """The tab's label (cut to fit)."""
        return self.controller.title

    @property
    def queue(self) -> deque[str]:
        """Sends waiting for the running work, oldest first."""
        return self.controller.queue

    @property
    def budget(self) -> ContextBudget | None:
        """The last measured budget (the meter's)."""
        return self.controller.budget

    @budget.setter
    def budget(self, value: ContextBudget | None) -> None:
        self.controller.budget = value

    @property
    def _live(self) -> AgentItem | None:
        """The answer streaming now (tests and the step benchmark wait for it)."""
        return self.renderer.live

    @property
    def chat(self) -> ChatPane:
        return self.query_one(ChatPane)

    @property
    def meter(self) -> ContextMeter:
        return self.query_one(ContextMeter)

    @property
    def working(self) -> WorkingLine:
        return self.query_one(WorkingLine)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    def on_mount(self) -> None:
        self.query_one(NoModelPanel).display = False
        self.meter.placeholder = "opening…"
        session_id, continue_ = self._start
        self.begin(self.opening.start(session_id, continue_=continue_))

    def begin(self, worker: Worker[None]) -> None:
        """The tab's own worker (opening a session) started: busy until it ends."""
        self._apply_now(self.controller.began())
        self._worker = worker

    def tasks_changed(self) -> None:
        self.post_message(self.TasksChanged(self))

    async def open_new(self, session_id: str | None = None) -> None:
        """Replace this tab's session with a new (or a stored) one."""
        self.begin(self.opening.start(session_id))

    # -- keys and messages from the input, find bar and sub-agent lines (tab_keys.py) ----------

    def action_to_background(self) -> None:
        self.keys.to_background()

    def action_find(self) -> None:
        self.keys.find()

    @on(events.Key)
    @on(events.Paste)
    @on(PromptInput.Submitted)
    @on(PromptInput.Escape)
    @on(PromptInput.Jump)
    @on(PromptInput.Scroll)
    @on(FindBar.Closed)
    @on(ChildLine.Open)
    async def _to_keys(self, message: Message) -> None:
        await self.keys.message(message)

    # -- the tab's label (the rest of what slash commands may ask is in tab_host.py) ----------

    def rename(self, title: str, *, named: bool = False) -> None:
        self._apply_now(self.controller.retitle(title, named=named))

    @on(Awaiting)
    async def _awaiting(self, event: Awaiting) -> None:
        """An approval is asked or answered (tab_driving.py)."""
        event.stop()
        if event.tool is not None:
            self.app.attention.ping("agent-tui", f"{self.title}: approve {event.tool}?")  # type: ignore[attr-defined]
        await self.apply(self.controller.awaiting(event.tool))

    # -- sending -----------------------------------------------------------------------------

    def interrupt(self) -> bool:
        """Esc: stop the running turn or compaction (the chat then says "Cancelled.")."""
        return self.cancel()

    async def send(self, text: str) -> None:
        """Run a prompt or command now, or queue it while this tab is busy."""
        opened = self.services is not None and self._worker is None  # a driver, its session opened
        await self.apply(self.controller.send(text, has_session=self.session is not None, opened=opened))

    async def start_compact(self, instructions: str | None) -> None:
        """/compact: condense this tab's conversation now."""
        await self.apply(self.controller.compact(instructions, has_session=self.session is not None))

    # -- operations and workers ------------------------------------------------------------------

    @property
    def driver(self) -> SessionDriver:
        """What this tab's operations are submitted to; it drives the tab's current session."""
        return self.driving.driver()

    @property
    def asking(self) -> str:
        return self.controller.prompt or self.title

    async def start_review(self, base: str | None) -> None:
        """/review [base]: the diff reviewed by a sub-agent."""
        await self.apply(self.controller.review(base, has_session=self.session is not None))

    def cancel(self) -> bool:
        """Cancel the running turn, compaction or opening; False when there is none."""
        if not self.busy:
            return False
        if (driver := self.driving.current) is not None and driver.busy:
            self.controller.cancelling()
            # Interrupt is awaited by a task of its own: Esc and closing a tab do not wait for it.
            self._interrupting = asyncio.get_running_loop().create_task(driver.submit(ops.Interrupt()))
            return True
        worker = self._worker
        if worker is None or worker.is_finished:
            return False
        self.controller.cancelling()
        worker.cancel()
        return True

    def on_unmount(self) -> None:
        self.cancel()  # the driver's work is no worker of this node: it ends with the tab itself

    @on(Worker.StateChanged)
    async def _worker_changed(self, event: Worker.StateChanged) -> None:
        """Every worker of this tab ends here: failures become one line, the queue moves on."""
        worker = event.worker
        if worker is not self._worker or not worker.is_finished:
            return
        error = worker.error if event.state == WorkerState.ERROR else None
        if error is not None:
            if self.controller.cancel_requested:  # surfaced from deep inside the HTTP client
                log.info("tab %s: cancelled %s ended with %r", self.number, worker.name, error)
            else:
                log.error("tab %s: %s failed", self.number, worker.name, exc_info=error)
        outcome: Outcome = (
            "cancelled" if event.state == WorkerState.CANCELLED else "error" if error else "success"
        )
        self._worker = None
        if worker.name == "open_session" and outcome == "success":
            self.driving.opened()  # the user may have typed while it opened
        end = WorkerEnd(worker.name, outcome, opening.error_line(error), has_session=self.session is not None)
        await self.apply(self.controller.worker_finished(end))

    async def _work_finished(self, name: str, outcome: Outcome, error: str) -> None:
        """The driver's work (or an operation it refused) ended: as a worker's end."""
        if self.session is not None and name == "run_turn":
            # The user reads the first reply now: tiktoken loads for exact counts from here.
            # Not at start-up: its ~0.3 s of GIL-holding load would slow the first frame and send.
            self.session.meter.counter.load_soon()
            if outcome == "success":
                self.app.attention.ping("agent-tui", f"{self.title}: turn finished")  # type: ignore[attr-defined]
        end = WorkerEnd(name, outcome, error, has_session=self.session is not None)
        await self.apply(self.controller.worker_finished(end))

    # -- applying the controller's operations ----------------------------------------------------

    async def on_agent_event_message(self, message: AgentEventMessage) -> None:
        message.stop()
        event = message.event
        if isinstance(event, ev.TurnEvent):
            await self.render_event(event)
        elif isinstance(event, pe.WorkFinished):
            name = WORK_NAMES.get(event.operation, event.operation)
            await self._work_finished(name, OUTCOMES[event.state], event.message or "")
        elif isinstance(event, pe.OperationRefused) and event.operation in WORK_NAMES:
            # A send the driver would not take fails like one that broke: the text goes back.
            await self._work_finished(WORK_NAMES[event.operation], "error", event.message)
        elif not isinstance(event, pe.ProtocolEvent):  # the rest: rendered by the op's caller
            log.warning("no view for event %s", type(event).__name__)

    async def render_event(self, event: ev.TurnEvent) -> None:
        await self.apply(self.controller.event(event))

    async def apply(self, operations: list[op.ViewOp]) -> None:
        """Apply operations in order (a command or a send may await in between)."""
        for operation in operations:
            if isinstance(operation, op.TAB_OPS):
                await self._apply_tab(operation)
                continue
            if isinstance(operation, op.ShowUser) and self.session is not None:
                # Reading what `@` names is the view's I/O, not the headless controller's.
                from agent_tui.agent.attachments import image_chips  # lazy: start-up

                chips = image_chips(operation.text, self.session.workspace, self.session.model)
                chips += self.prompt.images.chips(operation.text, self.session.model)
                operation = op.ShowUser(operation.text, tuple(chips))
            await self.renderer.apply(operation)

    def _apply_now(self, operations: list[op.ViewOp]) -> None:
        """Apply operations that never await (busy and title changes) from sync code."""
        for operation in operations:
            match operation:
                case op.BusyChanged():
                    self.post_message(self.BusyChanged(self))
                case op.Retitle(title):
                    self.post_message(self.TitleChanged(self, title))
                case _:
                    raise AssertionError(f"{operation!r} is applied with `apply`")

    async def _apply_tab(self, operation: op.TabOp) -> None:
        match operation:
            case op.BusyChanged() | op.Retitle():
                self._apply_now([operation])
            case op.SendNext(text):
                await self.send(text)
            case op.RunCommand(parsed):
                await slash.run(self.commands, parsed)
                await self.apply(self.controller.command_ran())
            case op.StartWorker("turn", argument):
                pictures = tuple(ops.Picture.of(*shot) for shot in self.prompt.images.in_text(argument or ""))
                await self.driver.submit(
                    ops.Send(argument or "", pictures)
                )  # a custom /command expands first
            case op.StartWorker("command", argument):
                await self.driver.submit(ops.Shell(argument or ""))
            case op.StartWorker("review", argument):
                await self.driver.submit(ops.Review(argument))
            case op.StartWorker(_, argument):
                await self.driver.submit(ops.Compact(argument))
            case op.Remeasure():
                self.commands.remeasure()
            case _:
                assert_never(operation)
