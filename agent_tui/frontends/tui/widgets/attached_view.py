"""A tab over a served session (`agent-tui --attach URL`): the chat, meter, working line, queue
and input of a local tab, driven through a `RemoteDriver` (frontends/server/remote.py) instead of an
in-process session.

The view only maps input to operations and renders events. It shares the local tab's rules and
rendering — `TabController` decides what a send or an event means, `TabRenderer` shows it — so a
served turn looks as a local one does. Where the local tab starts a worker, this one submits the
operation; the server's `work_finished` plays the worker's end. A turn another client started
(a second attached TUI, a script) arrives as `turn_started` and is shown as if typed here: the
controller is told of the send, its "start the worker" is not acted on, the server already runs it.

An `approval_requested` event opens the usual approval dialog; its answer is an `approve`
operation. Answered elsewhere first (another client, the timeout), the dialog closes itself.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, assert_never

from textual import work
from textual.app import ComposeResult, ScreenStackError
from textual.containers import Vertical

from agent_tui.agent import events as ev
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.commands import Front, as_operation, parse
from agent_tui.frontends.tui import tab_ops as op
from agent_tui.frontends.tui.tab_controller import TabController, WorkerEnd
from agent_tui.frontends.tui.transcript import OutputEntry
from agent_tui.frontends.tui.widgets.chat import ChatPane
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.prompt import PromptArea, PromptInput
from agent_tui.frontends.tui.widgets.session_view import OUTCOMES, WORK_NAMES  # a local tab's, the same rules
from agent_tui.frontends.tui.widgets.status import QueuePanel, WorkingLine
from agent_tui.frontends.tui.widgets.status_line import StatusLineBar
from agent_tui.frontends.tui.widgets.tab_render import TabRenderer
from agent_tui.tools.approval_request import ApprovalDecision

if TYPE_CHECKING:
    from agent_tui.agent.events import AgentEvent
    from agent_tui.frontends.server.remote import RemoteDriver
    from agent_tui.frontends.tui.screens.approval import ApprovalScreen

log = logging.getLogger(__name__)

LOCAL_COMMANDS = ("/context", "/blobs")
"""Slash commands the attached TUI opens itself (as screens over the server's reads)."""


class AttachedView(Vertical):
    def __init__(self, driver: RemoteDriver) -> None:
        super().__init__(classes="session-view")
        self.driver = driver
        self.controller = TabController()
        self.renderer = TabRenderer(self, lambda: self.driver.session_id)
        self.seen = 0
        """The id (in the driver's log) of the last event rendered."""
        self._observed = False
        """The controller's send being applied is a turn another client started."""
        self._prepared = False
        self._asking: dict[str, ApprovalScreen] = {}
        """The dialogs asking now, by request id."""
        self._open: set[str] = set()
        """Of those, the ones mounted (a dialog still opening is closed once it is)."""
        self._resolved: set[str] = set()
        """Approvals answered (by anyone): never asked again."""

    def compose(self) -> ComposeResult:
        yield ChatPane(id="chat")
        yield WorkingLine(id="working")
        yield QueuePanel(id="queue")
        yield ContextMeter(id="meter")
        yield StatusLineBar(id="status-line")
        yield PromptArea(id="prompt-area")

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def busy(self) -> bool:
        return self.controller.busy

    def on_mount(self) -> None:
        self.driver.on_connection = lambda text: self.app.notify(text, severity="warning", timeout=10)
        self.query_one(ContextMeter).placeholder = "attaching…"
        self.first_budget()
        self.follow()
        self.prompt.focus()

    # -- input → operations ------------------------------------------------------------------

    async def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        event.stop()
        text = event.text
        if not text.strip():
            return
        event.prompt.remember(text)
        event.prompt.set_text("")
        await self.send(text)

    def on_prompt_input_escape(self, event: PromptInput.Escape) -> None:
        event.stop()
        self.interrupt()

    def interrupt(self) -> bool:
        """Esc: stop the served session's running work (for every attached client)."""
        if not self.busy:
            return False
        self.controller.cancelling()
        self._submit(ops.Interrupt(), None)
        return True

    async def send(self, text: str) -> None:
        word = text.strip().split(maxsplit=1)[0] if text.strip() else ""
        if word in LOCAL_COMMANDS:
            await self.app.run_action(word[1:])
            return
        if word.startswith("/") and not self.busy:
            await self._command(text)
            return
        await self.apply(self.controller.send(text, has_session=True))

    async def _command(self, text: str) -> None:

        if text.strip().startswith("/compact"):
            argument = text.strip()[len("/compact") :].strip()
            await self.apply(self.controller.compact(argument or None, has_session=True))
        elif text.split()[0] == "/review":  # work on the server, as in a local tab
            argument = text.strip()[len("/review") :].strip()
            await self.apply(self.controller.review(argument or None, has_session=True))
        elif (operation := _operation(text)) is not None:  # as a local tab submits it to its driver
            await self.renderer.apply(op.ShowUser(text))
            self._submit(operation, None)
        else:
            self.app.notify(
                f"{text.split()[0]} is not offered over --attach (the server runs /context, /blobs, "
                "/compact and every command with an effect).",
                severity="warning",
            )
            self.prompt.set_text(text)

    def prepare(self) -> None:
        """The user is writing (a key, a paste): the served session gets its first request's way
        ready meanwhile (the `prepare` operation, once), as a local tab does."""
        if not self._prepared:
            self._prepared = True
            self._prepare()

    @work(group="prepare", exit_on_error=False)
    async def _prepare(self) -> None:
        try:
            await self.driver.submit(ops.Prepare())
        except Exception:  # only a head start: the send that follows reports a dead connection
            log.warning("could not ask the server to prepare the session", exc_info=True)

    @work(group="submit", exit_on_error=False)
    async def _submit(self, operation: ops.Op, work_name: str | None) -> None:
        """Submit `operation`; when it was to start work (`work_name`) and the server could not
        take it, the tab's work ends there (the prompt goes back to the input)."""
        import httpx

        from agent_tui.frontends.server.client import ServerError  # lazy: heavy

        try:
            refused = await self.driver.submit(operation)
        except (ServerError, httpx.HTTPError) as exc:
            refused = f"the server did not take {operation.type}: {exc}"
        if refused is None:
            return
        if work_name is None:
            self.app.notify(f"{operation.type}: {refused}", severity="warning")
        else:  # e.g. another client's turn runs: the text goes back to the input, as in a local tab
            await self.apply(self.controller.worker_finished(WorkerEnd(work_name, "error", refused)))

    # -- events → the chat -------------------------------------------------------------------

    @work(group="first-budget", exit_on_error=False)
    async def first_budget(self) -> None:
        """The meter at once, before the session's next measurement reaches the stream."""
        remote = await self.driver.context(savings=False)
        if self.controller.budget is None:  # a streamed measurement came first: it is newer
            self.controller.budget = remote.report.budget
            self.query_one(ContextMeter).show(remote.report.budget)

    @work(group="follow", exclusive=True, exit_on_error=False)
    async def follow(self) -> None:
        """Render the driver's log as it grows (the whole session's events first, on attach)."""
        async for event_id, event in self.driver.log.follow(self.seen):
            self.seen = event_id
            await self.render_event(event)

    async def render_event(self, event: AgentEvent) -> None:
        match event:
            case ev.TurnStarted(_, prompt) if not self.controller.busy:
                self._observed = True
                try:
                    await self.apply(self.controller.send(prompt, has_session=True))
                finally:
                    self._observed = False
            case pe.ApprovalRequested():
                if not self._resolved_later(event.request_id):
                    self.ask(event)
            case pe.ApprovalResolved():
                self._resolved.add(event.request_id)
                screen = self._asking.pop(event.request_id, None)
                if screen is not None:  # shown here, answered elsewhere (or timed out)
                    if event.request_id in self._open:
                        self._close(event.request_id, screen)
                    said = {"timeout": "nobody answered in time", "interrupt": "the work was interrupted"}
                    why = said.get(event.by, "answered by another client")
                    self.app.notify(f"Approval {event.action.replace('_', ' ')}: {why}.", severity="warning")
                await self.apply(self.controller.awaiting(None))
            case pe.WorkFinished():
                name = WORK_NAMES.get(event.operation, event.operation)
                if self.controller.busy:
                    end = WorkerEnd(name, OUTCOMES[event.state], event.message or "")
                    await self.apply(self.controller.worker_finished(end))
            case pe.CommandReplied():
                # The block a local tab shows for a reply (frontends/tui/slash.py renders the same).
                await self.renderer.apply(op.AddEntry(OutputEntry(event.title, event.text, event.level)))
            case pe.OperationRefused():
                pass  # told to the client that submitted it, in the answer (`_submit`)
            case pe.SessionReplaced() | pe.SessionForked():
                self.app.notify(f"{event.type.replace('_', ' ')}: {event.session_id}")
            case ev.TurnStarted():
                pass
            case _ if isinstance(event, ev.TurnEvent):
                await self.apply(self.controller.event(event))
            case _:
                log.warning("no view for event %s", type(event).__name__)

    def _close(self, request_id: str, screen: ApprovalScreen) -> None:
        """Take an open dialog away (its question was answered elsewhere)."""
        self._open.discard(request_id)
        try:
            screen.dismiss(None)
        except ScreenStackError:  # not on top (a screen opened over it): it goes when they close
            log.info("approval %s answered elsewhere; its dialog is not on top", request_id)

    def _resolved_later(self, request_id: str) -> bool:
        """Replaying history: an approval answered further on is not asked again."""
        return any(
            isinstance(later, pe.ApprovalResolved) and later.request_id == request_id
            for _, later in self.driver.log.after(self.seen)
        )

    @work(group="approval", exit_on_error=False)
    async def ask(self, asked: pe.ApprovalRequested) -> None:
        from agent_tui.frontends.tui.screens.approval import ApprovalScreen  # lazy: heavy

        await self.apply(self.controller.awaiting(asked.tool))
        request = asked.question()  # the dialog a local tab shows for the same event
        if asked.request_id in self._resolved:
            return  # answered while this worker started
        where = f"served session {self.driver.session_id}"
        where += f" · sub-agent: {asked.agent}" if asked.agent else ""  # as a local tab names it
        screen = ApprovalScreen(request, where=where)
        self._asking[asked.request_id] = screen
        answered: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        await self.app.push_screen(screen, callback=lambda result: answered.set_result(result))
        self._open.add(asked.request_id)
        if asked.request_id not in self._asking:  # answered elsewhere while the dialog opened
            self._close(asked.request_id, screen)
        decision = await answered
        if self._asking.pop(asked.request_id, None) is None:
            return  # answered elsewhere: the dialog was closed for it

        chosen = decision if isinstance(decision, ApprovalDecision) else ApprovalDecision("deny")
        await self.driver.submit(ops.Approve(asked.request_id, chosen.action, chosen.prefix))

    # -- applying the controller's operations --------------------------------------------------

    async def apply(self, operations: list[op.ViewOp]) -> None:
        for operation in operations:
            if isinstance(operation, op.TAB_OPS):
                await self._apply_tab(operation)
                continue
            if isinstance(operation, op.ShowUser) and not self._observed:
                # The chips of the pictures pasted here (whether the served model takes them is
                # the server's to say; a text-only one gets the notice there).
                operation = op.ShowUser(operation.text, self.prompt.images.chips(operation.text, None))
            await self.renderer.apply(operation)

    async def _apply_tab(self, operation: op.TabOp) -> None:
        match operation:
            case op.BusyChanged() | op.Retitle() | op.Remeasure():
                pass  # one tab, no label to mark; the server measures after its own work
            case op.SendNext(text):
                await self.send(text)
            case op.RunCommand(parsed):
                await self._command(f"/{parsed.command.name} {parsed.argument}".strip())
            case op.StartWorker(kind, argument):
                if self._observed:
                    return  # the server runs it already: another client sent it
                if kind == "turn":  # the pictures pasted into this input go with it, inline
                    shots = self.prompt.images.in_text(argument or "")
                    self._submit(
                        ops.Send(argument or "", tuple(ops.Picture.of(*s) for s in shots)), "run_turn"
                    )
                elif kind == "command":
                    self._submit(ops.Shell(argument or ""), "run_command")
                elif kind == "compact":
                    self._submit(ops.Compact(argument), "run_compact")
                elif kind == "review":
                    self._submit(ops.Review(argument), "run_review")
                else:
                    end = WorkerEnd(f"run_{kind}", "error", "not offered over --attach")
                    await self.apply(self.controller.worker_finished(end))
            case _:
                assert_never(operation)


def _operation(text: str) -> ops.Op | None:
    """The operation a TUI command typed here is (core/commands.py `as_operation`), or None for
    a TUI action (a screen, a tab) that has no form over the server."""
    found = parse(text, Front.TUI)
    return as_operation(*found) if found is not None else None
