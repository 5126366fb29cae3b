"""One tab: a session with its chat, meter, queue and input, running its own turns.

The turn worker lives here, not on the App: exclusive worker groups are per node, so two tabs'
turns run side by side and one never cancels the other. The worker only relays the session's
events as messages; everything the user sees changes in the message handlers, in order. Sends
made while a turn or compaction runs wait in a queue (shown dimmed) and go out after it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.worker import Worker, WorkerState

from agent_tui import instrument
from agent_tui.agent.attachments import image_chips
from agent_tui.agent.user_command import user_command
from agent_tui.config import ConfigError
from agent_tui.errors_text import one_line
from agent_tui.models import switched_model
from agent_tui.store.leases import SessionBusy
from agent_tui.ui import slash, transcript
from agent_tui.ui.command_output import show
from agent_tui.ui.events import AgentEventMessage
from agent_tui.ui.transcript import NoticeEntry, UserEntry
from agent_tui.ui.widgets.chat import ChatPane
from agent_tui.ui.widgets.chat_items import ToolLine
from agent_tui.ui.widgets.find_bar import FindBar
from agent_tui.ui.widgets.meter import ContextMeter
from agent_tui.ui.widgets.prompt import PromptArea, PromptInput
from agent_tui.ui.widgets.session_events import EventRendering
from agent_tui.ui.widgets.status import NoModelPanel, QueuePanel, WorkingLine

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.context.budget import ContextBudget
    from agent_tui.factory import AppServices
    from agent_tui.messages import Message as ChatMessage
    from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest
    from agent_tui.ui.transcript import Entry
    from agent_tui.ui.widgets.chat_items import AgentItem
    from agent_tui.ui.widgets.thinking import ThinkingItem

log = logging.getLogger(__name__)

ServicesSource = Callable[[], Awaitable["AppServices | None"]]
Approve = Callable[["ApprovalRequest", str], Awaitable["ApprovalDecision"]]


class SessionView(EventRendering, Vertical):
    """Owns one AgentSession (or none, when no model is configured)."""

    BINDINGS: ClassVar = [
        Binding("ctrl+b", "to_background", "to background", show=False),
        Binding("ctrl+f", "find", "find in chat", key_display="^F", show=False),
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
        session_id: str | None = None,
        continue_: bool = False,
    ) -> None:
        super().__init__(classes="session-view")
        self._get_services = services
        self._approve = approve
        self.number = number
        self.services: AppServices | None = None
        self.session: AgentSession | None = None
        self._rewind_armed = False  # one Esc on an empty prompt; a second opens /rewind
        self.title = "new"
        self._busy = False
        self.queue: deque[str] = deque()
        self.budget: ContextBudget | None = None
        self._start = (session_id, continue_)
        self._live: AgentItem | None = None
        self._thinking: ThinkingItem | None = None
        self._tools: dict[str, ToolLine] = {}
        self._streamed = 0
        self._prompt: str | None = None  # the send of the running turn, restored if it fails
        self._failed = False
        self._replied = False  # text streamed in the running turn (then nothing is restored)
        self._compaction_steps: list[str] = []
        self._worker: Worker[None] | None = None
        self._cancel_requested = False

    def compose(self) -> ComposeResult:
        yield ChatPane(id="chat")
        yield NoModelPanel(id="no-model")
        yield WorkingLine(id="working")
        yield QueuePanel(id="queue")
        yield ContextMeter(id="meter")
        yield FindBar(id="find")
        yield PromptArea(id="prompt-area")

    @property
    def busy(self) -> bool:
        """A turn, compaction or opening runs in this tab."""
        return self._busy

    @busy.setter
    def busy(self, value: bool) -> None:
        if value != self._busy:
            self._busy = value
            self.post_message(self.BusyChanged(self))

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

    def on_mount(self) -> None:
        self.query_one(NoModelPanel).display = False
        self.meter.placeholder = "opening…"
        session_id, continue_ = self._start
        self._begin(self.open_session(session_id, continue_=continue_))

    def _begin(self, worker: Worker[None]) -> None:
        self.busy = True
        self._worker = worker

    # -- opening -----------------------------------------------------------------------------

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def open_session(
        self,
        session_id: str | None = None,
        *,
        continue_: bool = False,
        services: AppServices | None = None,
        keep_chat: bool = False,
    ) -> None:
        """Create or resume this tab's session; without a model, show the panel instead.
        `keep_chat`: the same session under another model — what is on screen (error lines
        included, which the history does not hold) stays."""
        services = services or self.services or await self._get_services()
        if services is None:
            self.meter.placeholder = "the session store could not be opened (see the log)"
            self.meter.refresh()
            return
        self.services = services
        if continue_ and session_id is None:
            session_id = await services.newest_session_id()
        try:
            if session_id:
                session = await services.resume_session(session_id, approver=self.approve)
            else:
                session = await services.new_session(approver=self.approve)
        except ConfigError as exc:
            await self._without_model(str(exc), session_id)
            return
        except SessionBusy as exc:  # another agent-tui process writes to it: read it only
            await self._without_model(str(exc), session_id, read_only=f"Read-only: {exc}.")
            return
        old, self.session = self.session, session
        if old is not None and old is not session and old.session_id == session.session_id:
            session.keep_background_of(old)  # /model: the same session's commands run on
        if old is not None and old is not session:
            await old.close()
        if session.background is not None and self._tasks_changed not in session.background.listeners:
            session.background.listeners.append(self._tasks_changed)
        self.query_one(NoModelPanel).display = False
        self.meter.cost_line = None
        if keep_chat and old is not None and old.session_id == session.session_id:
            await self.chat.add(NoticeEntry(f"Model: {session.model}"))
        else:
            await self.chat.load(await self._entries_to_show(services, session))
        self._set_title(session.title or _title_from(session.history) or "new")
        self.call_after_refresh(instrument.mark, "chat_shown")
        # The first measure counts every message (~0.1 s per 1 000): the chat is already on
        # screen, sends made meanwhile wait in the queue, and the count runs off the UI loop.
        self.meter.placeholder = f"measuring {len(session.history)} messages…"
        self.meter.show(None)
        self.budget = await asyncio.to_thread(session.measure)
        self.meter.show(self.budget)

    def _tasks_changed(self) -> None:
        self.post_message(self.TasksChanged(self))

    async def _entries_to_show(self, services: AppServices, session: AgentSession) -> list[Entry]:
        """The whole transcript (what the user saw), not the compacted history the model
        gets; a notice at the end says when the two differ."""
        history = session.history
        compacted = any(m.kind in ("summary", "retain") for m in history)
        if not compacted:
            return transcript.entries_from_history(history)
        try:
            whole = await services.store.sessions.transcript(session.session_id)
        except Exception:
            log.warning("could not read the transcript of %s", session.session_id, exc_info=True)
            return transcript.entries_from_history(history)
        entries = transcript.entries_from_history(whole)
        entries.append(
            NoticeEntry(
                "Compacted earlier: the model sees a summary of the turns "
                "above (/context shows what it holds)."
            )
        )
        return entries

    async def _without_model(
        self,
        reason: str,
        session_id: str | None,
        read_only: str = "Read-only: no model is configured (/model NAME sets one).",
    ) -> None:
        self.session = None
        self.query_one(NoModelPanel).explain(reason)
        self.meter.placeholder = "no model configured"
        self.meter.show(None)
        if session_id and self.services is not None:
            history = await self.services.store.sessions.transcript(session_id)
            await self.chat.load(transcript.entries_from_history(history))
            self.query_one(NoModelPanel).display = False
            await self.chat.add(NoticeEntry(read_only, "warning"))
            info = await self.services.store.sessions.get(session_id)
            self._set_title((info.title if info else None) or _title_from(history) or "session")

    def _set_title(self, title: str) -> None:
        self.title = tab_label(title)
        self.post_message(self.TitleChanged(self, self.title))

    @dataclasses.dataclass
    class Awaiting(Message):
        """An approval is asked (`tool`) or answered (None). A message, so it is shown after the
        ToolCallStarted the worker posted before asking."""

        tool: str | None

    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        """The approver this tab's session was built with: the App shows the modal. Meanwhile
        the tool line and the working line say "awaiting approval"; an allowed call's clock
        starts when the user answers, so their think time is not the tool's run time."""
        from agent_tui.agent.subagents import CURRENT_AGENT

        self.post_message(self.Awaiting(request.tool))
        where = f"tab {self.number} · {self.title}"
        if (child := CURRENT_AGENT.get()) is not None:
            where += f" · sub-agent: {child}"  # a child of this tab's session asks
        try:
            return await self._approve(request, where)
        finally:
            self.post_message(self.Awaiting(None))

    @on(Awaiting)
    def _awaiting(self, event: Awaiting) -> None:
        event.stop()
        line = next(
            (t for t in reversed(self._tools.values()) if t.entry.state in ("running", "awaiting")), None
        )
        if event.tool is not None:
            self.working.set_state("awaiting approval")
            if line is not None:
                line.set_entry(dataclasses.replace(line.entry, state="awaiting"))
            return
        if line is not None and line.entry.state == "awaiting":
            self.working.set_state(f"running {line.entry.name}")
            line.set_entry(dataclasses.replace(line.entry, state="running"))

    # -- sending -----------------------------------------------------------------------------

    @on(PromptInput.Submitted)
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        event.stop()
        text = event.text
        if not text.strip():
            return
        self._rewind_armed = False
        event.prompt.remember(text)
        event.prompt.set_text("")
        await self.send(text)

    def on_key(self, event: events.Key) -> None:
        """Typing while a tool line or the chat has focus goes to the input."""
        if isinstance(self.app.focused, (PromptInput, FindBar)):
            return
        if event.key == "escape" and self.interrupt():
            event.stop()
            return
        if event.is_printable and event.character:
            self.prompt.focus()
            self.prompt.insert(event.character)
            event.stop()
        elif event.key == "escape":
            self.prompt.focus()
            event.stop()

    def action_to_background(self) -> None:
        """Ctrl+B: the running foreground bash call goes on in the background (/tasks)."""
        shells = self.session.background if self.session is not None else None
        why = shells.detach_foreground() if shells is not None else "no session in this tab"
        if why:
            self.app.notify(f"Ctrl+B: {why}.", severity="warning")

    def on_prompt_input_escape(self, event: PromptInput.Escape) -> None:
        event.stop()
        if self.interrupt():
            return
        # Esc Esc on an empty prompt: rewind. The first one arms it; typing disarms it.
        if self.prompt.text.strip():
            self._rewind_armed = False
        elif self._rewind_armed:
            self._rewind_armed = False
            from agent_tui.ui.task_commands import start_rewind

            start_rewind(self)
        else:
            self._rewind_armed = True

    def interrupt(self) -> bool:
        """Esc: stop the running turn or compaction (the chat then says "Cancelled.")."""
        return self.cancel()

    def action_find(self) -> None:
        """Ctrl+F: find in this tab's chat (widgets/find_bar.py)."""
        self.query_one(FindBar).open(self.chat)

    @on(FindBar.Closed)
    def _find_closed(self, event: FindBar.Closed) -> None:
        event.stop()
        self.prompt.focus()

    @on(PromptInput.Jump)
    async def _jump(self, event: PromptInput.Jump) -> None:
        event.stop()
        if event.top:
            await self.chat.jump_top()
        else:
            self.chat.jump_end()

    @on(PromptInput.Scroll)
    def _scroll_chat(self, event: PromptInput.Scroll) -> None:
        event.stop()
        if event.pages < 0:
            self.chat.scroll_page_up()
        else:
            self.chat.scroll_page_down()

    async def send(self, text: str) -> None:
        """Run a prompt or command now, or queue it while this tab is busy."""
        parsed = slash.parse(text)
        if parsed is not None and parsed.command.runs is slash.Runs.NOW:
            await slash.run(self, parsed)
            return
        unknown = slash.unknown_command(text)
        if unknown is not None:
            self.app.notify(f"Unknown command /{unknown}: /help lists the commands.", severity="warning")
            self._restore(text)
            return
        if self.busy:
            self.queue.append(text)
            await self.query_one(QueuePanel).push(text)
            return
        if parsed is not None:
            await slash.run(self, parsed)
            return
        if self.session is None:
            self.app.notify(
                "No model configured: set one with /model NAME or see the panel.", severity="error"
            )
            self._restore(text)
            return
        command = user_command(text)
        if command is not None:  # `!ls`: the user's own command, run unasked (user_command.py)
            await self.chat.add(UserEntry(text))
            self.chat.anchor()
            self.working.start("running")
            self._begin(self.run_command(command))
            return
        self._prompt, self._failed, self._replied, self._streamed = text, False, False, 0
        await self.chat.add(UserEntry(text, image_chips(text, self.session.workspace, self.session.model)))
        self.chat.anchor()
        if self.title == "new":
            self._set_title(text)
        self.working.start("thinking")
        self._begin(self.run_turn(text))

    async def start_compact(self, instructions: str | None) -> None:
        """/compact: condense this tab's conversation now."""
        if self.session is None:
            self.app.notify("Nothing to compact: no model configured.", severity="warning")
            return
        self._compaction_steps = []
        self.working.start("compacting")
        self._begin(self.run_compact(instructions))

    async def open_new(self, session_id: str | None = None) -> None:
        """Replace this tab's session with a new (or a stored) one."""
        self._begin(self.open_session(session_id))

    async def switch_model(self, name: str) -> None:
        if not name:
            current = self.session.model if self.session else "none"
            show(self, "/model", f"Model: {current}\n/model NAME switches this tab to another model.")
            return
        services = self.services or await self._get_services()
        if services is None:
            return
        config = services.config
        model, left = switched_model(config.model, name)
        if left:
            self.app.notify(
                f"{name} is not on the configured server: {', '.join(left)} from [model] stay behind."
            )
        self.services = dataclasses.replace(services, config=dataclasses.replace(config, model=model))
        session_id = self.session.session_id if self.session else None
        self._begin(self.open_session(session_id, services=self.services, keep_chat=True))

    def _restore(self, text: str) -> None:
        """Put a send that did not go through back into the input (unless something new is
        being typed there)."""
        if not self.prompt.text.strip():
            self.prompt.set_text(text)

    # -- workers -----------------------------------------------------------------------------

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def run_turn(self, text: str) -> None:
        assert self.session is not None
        from agent_tui.extensions.invoke import turn_events

        async for event in turn_events(self.session, text):  # a custom /command expands first
            self.post_message(AgentEventMessage(event))

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def run_command(self, command: str) -> None:
        assert self.session is not None
        async for event in self.session.run_user_command(command):
            self.post_message(AgentEventMessage(event))

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def run_compact(self, instructions: str | None) -> None:
        assert self.session is not None
        async for event in self.session.compact(instructions):  # busy while it runs
            self.post_message(AgentEventMessage(event))

    def cancel(self) -> bool:
        """Cancel the running turn or compaction; False when there is none."""
        worker = self._worker
        if worker is None or worker.is_finished or not self.busy:
            return False
        self._cancel_requested = True
        worker.cancel()
        return True

    @on(Worker.StateChanged)
    async def _worker_changed(self, event: Worker.StateChanged) -> None:
        """Every worker of this tab ends here: failures become one line, the queue moves on."""
        worker = event.worker
        if worker is not self._worker or not worker.is_finished:
            return
        # A cancelled request can surface as an error from deep inside the HTTP client.
        cancelled = event.state == WorkerState.CANCELLED or self._cancel_requested
        self._cancel_requested = False
        if event.state == WorkerState.ERROR and not cancelled:
            error = worker.error
            log.error("tab %s: %s failed", self.number, worker.name, exc_info=error)
            self.app.notify(
                f"{worker.name.replace('_', ' ')} failed: {_one_line(error)} (details in the log file)",
                severity="error",
            )
            self._failed = True
            if worker.name == "open_session" and self.session is None:
                self.meter.placeholder = "no session: opening it failed (details in the log file)"
                self.meter.show(None)
        elif cancelled:
            if event.state == WorkerState.ERROR:
                log.info("tab %s: cancelled %s ended with %r", self.number, worker.name, worker.error)
            await self.chat.add(NoticeEntry("Cancelled.", "warning"))
        await self._settle(cancelled=cancelled)
        self._worker = None
        self.busy = False
        if self._failed and self._prompt and not self._replied:
            self._restore(self._prompt)
        self._prompt = None
        if self.queue:
            text = self.queue.popleft()
            await self.query_one(QueuePanel).pop()
            await self.send(text)

    async def _settle(self, *, cancelled: bool) -> None:
        """Stop every spinner of the finished work and show the recalibrated budget."""
        self.working.stop()
        self.meter.set_activity(None)
        for item in self._tools.values():
            if item.entry.state == "running":
                self.chat.replace(item, dataclasses.replace(item.entry, state="cancelled"))
        self._tools.clear()
        self.end_thinking()
        if self._live is not None:
            self.chat.commit(self._live)
            self._live = None
        if self.session is not None and (cancelled or self._failed):
            self.budget = self.session.measure()
            self.meter.show(self.budget)


TAB_LABEL = 28
"""Characters of a session's title its tab shows (an ellipsis says when it was cut)."""


def tab_label(title: str) -> str:
    title = " ".join(title.split())
    if len(title) > TAB_LABEL:
        return title[: TAB_LABEL - 1].rstrip() + "…"
    return title or "new"


def _title_from(history: Sequence[ChatMessage]) -> str | None:
    return next((m.content for m in history if m.role == "user" and m.kind == "chat" and m.content), None)


def _one_line(error: BaseException | None) -> str:
    return one_line(error or "", 160) or type(error).__name__
