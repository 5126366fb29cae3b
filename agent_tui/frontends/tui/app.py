"""The Textual app: tabs of sessions, the keys that act across them, and the modals.

The app is built from injected parts: a coroutine that returns the `AppServices` (tests pass one
with a temp database and the local test server), so what a test drives is what a user runs. The
services are built in a worker after the first frame, which keeps start-up under a second; each
tab's session view waits for them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from agent_tui.base.errors_text import one_line
from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui import themes
from agent_tui.frontends.tui.app_commands import AppCommands
from agent_tui.frontends.tui.app_signals import SignalExit
from agent_tui.frontends.tui.app_tabs import SessionTabs
from agent_tui.frontends.tui.attention import Attention
from agent_tui.frontends.tui.custom_commands import install
from agent_tui.frontends.tui.textual_compat import OneLineCrashes, SteadyFooter, write_to_terminal
from agent_tui.frontends.tui.type_ahead import TypeAhead
from agent_tui.frontends.tui.warmup import Warmup
from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.frontends.tui.widgets.compaction_item import CompactionItem
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from agent_tui.frontends.tui.widgets.session_view import SessionView
from agent_tui.runtime import instrument, paths
from agent_tui.tools.approval_request import ApprovalDecision

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from agent_tui.compose.factory import AppServices
    from agent_tui.tools.approval_request import ApprovalRequest

log = logging.getLogger(__name__)

ServicesFactory = Callable[[], Awaitable["AppServices"]]
QUIT_WINDOW = 2.0
T = TypeVar("T")


class AgentApp(OneLineCrashes[None]):
    CSS_PATH = Path(__file__).parent / "app.tcss"  # absolute: subclasses live elsewhere
    TITLE = "agent-tui"
    COMMAND_PALETTE_DISPLAY = "^P"
    BINDINGS: ClassVar = [
        Binding("ctrl+c", "interrupt", "cancel", key_display="^C", priority=True),
        Binding("ctrl+t", "new_tab", "new tab", key_display="^T", priority=True),
        Binding("ctrl+w", "close_tab", "close", key_display="^W", priority=True),
        Binding("f1", "help", "help", key_display="F1", priority=True),
        Binding("ctrl+pageup", "switch_tab(-1)", "previous tab", show=False),
        Binding("ctrl+pagedown", "switch_tab(1)", "next tab", show=False),
    ]

    def __init__(
        self,
        services: ServicesFactory | AppServices | None,
        *,
        continue_: bool = False,
        session_id: str | None = None,
        theme_name: str | None = None,
        workspace: Path | None = None,
        first_message: str | None = None,
    ) -> None:
        """`services` is a coroutine function building the services (the app then owns and
        closes them) or ready-made services (their owner closes them)."""
        super().__init__()
        self._owns_services = services is None or callable(services)
        if services is not None and not callable(services):
            ready = services

            async def given() -> AppServices:
                return ready

            services = given
        self._factory = services
        self._services: asyncio.Future[AppServices | None] | None = None
        self._warmup = Warmup()
        self._start = (session_id, continue_)
        self._first_message = first_message
        self._type_ahead = TypeAhead()
        """Sent in the first tab once its session is open (`agent-tui "fix the bug"`)."""
        self._last_interrupt = 0.0
        self.workspace = workspace or Path.cwd()
        # Before the first mount: switching themes afterwards would style every widget twice.
        self.file_themes, self._theme_problems = themes.register_all(self, theme_name or themes.DEFAULT_DARK)
        self.commands = AppCommands(self)
        """The App's own slash commands and the palette; the `AppActions` every tab reaches."""
        self.tabs = SessionTabs(self)
        """The tabs of sessions (composed below the top bar)."""
        self.signals = SignalExit(self)

        self.attention = Attention(self._notify_method, lambda data: write_to_terminal(self, data))
        """Notifies when a turn ends or an approval waits while the terminal is not focused."""

    def _notify_method(self) -> str:
        services = self.services_now()
        return services.config.ui.notify if services is not None else "off"

    def on_app_focus(self, _event: events.AppFocus) -> None:
        self.attention.focused = True

    def on_app_blur(self, _event: events.AppBlur) -> None:
        self.attention.focused = False

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Notices carry user text and error messages (`[model] name`): no markup by default,
        and control characters shown, never sent (a denial quotes the model's command)."""
        message, title = visible(message), visible(title)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar")
        yield self.tabs
        yield SteadyFooter()

    async def on_mount(self) -> None:
        self.signals.install()
        for problem in self._theme_problems:
            self.notify(problem, severity="warning")
        self._services = asyncio.get_running_loop().create_future()
        # After the first frame: the prompt shows first, the store and agent load behind it.
        self.call_after_refresh(self.build_services)
        session_id, continue_ = self._start
        view = await self.add_tab(session_id=session_id, continue_=continue_)
        if session_id == "":  # `agent-tui -r` without an id: pick one (the new session stays if none)
            self.commands.action_resume()  # a worker of its own
        if self._first_message and self._first_message.strip():
            await view.send(self._first_message)  # queued behind the opening, then sent
        self.call_after_refresh(self._type_ahead.shown)
        self.call_after_refresh(instrument.mark, "first_frame")

    # -- services ----------------------------------------------------------------------------

    @work(group="services", exit_on_error=False)
    async def build_services(self) -> None:
        assert self._services is not None
        try:
            # The imports warm up while the factory asks what it must ask first (the trust
            # question): under load they take seconds, and the question needs none of them.
            self._warmup.start()
            if self._first_message or any(self._start):
                self._warmup.ahead()  # a turn is coming, or a resumed chat renders Markdown now
            services = await self._factory() if self._factory is not None else None
            await self.warmed()
        except Exception as exc:
            log.exception("building the services failed")
            self.notify(
                f"Could not open the session store: {one_line(exc, 160)} (details in the log file)",
                severity="error",
            )
            services = None
        self._services.set_result(services)
        if services is not None:  # custom /commands join the menu, the palette and /help
            lines = [
                *services.notices,
                *install(services.workspace, services.config.provenance.folder_trusted),
            ]
            for line in lines:
                self.notify(line, severity="warning", timeout=15)
        sandbox = services.sandbox if services is not None else None
        if sandbox is not None and sandbox.notice:
            self.notify(sandbox.notice, severity="warning", timeout=30)
        self.refresh_topbar()

    async def warmed(self) -> None:
        """Wait for the warm-up: a factory does before importing the agent stack itself."""
        await self._warmup.done()

    async def services(self) -> AppServices | None:
        """The shared services once built (None when the store could not be opened)."""
        assert self._services is not None
        return await asyncio.shield(self._services)

    def services_now(self) -> AppServices | None:  # without waiting: None until built
        return self._services.result() if self._services is not None and self._services.done() else None

    @on(Worker.StateChanged)
    def _app_worker_changed(self, event: Worker.StateChanged) -> None:
        """The App's own workers (the services build) end here when they fail."""
        if event.state == WorkerState.ERROR:
            log.error("%s failed", event.worker.name, exc_info=event.worker.error)
            self.notify(f"{event.worker.name} failed (details in the log file)", severity="error")
            if self._services is not None and not self._services.done():
                self._services.set_result(None)

    async def on_unmount(self) -> None:
        await self.close_services()

    async def close_services(self) -> None:
        """Close the sessions and (when the app made them) the services; safe to call twice."""
        # The screens may be gone by now: close the sessions the views left behind by reference.
        for view in self.tabs.views:
            if view.session is not None:
                await view.session.close()
        if self._owns_services and self._services is not None and self._services.done():
            services = self._services.result()
            if services is not None:
                try:
                    await services.close()
                except Exception:
                    log.exception("closing the services failed")

    # -- the top bar -------------------------------------------------------------------------

    def refresh_topbar(self) -> None:
        view = self.view
        model = view.session.model if view and view.session else "no model"
        if view is not None and view.session is None and view.busy:
            model = "opening…"  # not "no model": the one configured is still loading
        where = paths.shown(self.workspace)
        services = self.services_now()
        sandbox = services.sandbox.topbar() if services is not None and services.sandbox else None
        # The sandbox state before the folder: at 80 columns the end of the bar is cut, and what
        # commands may do matters more than a path the user already knows.
        extra = f" ─ {sandbox}" if sandbox else ""
        shells = view.session.background if view and view.session else None
        running = len(shells.running()) if shells is not None else 0
        if running:  # before the sandbox too: a server left running is easy to forget
            extra = f" ─ ⧗ {running} running (/tasks){extra}"
        self.query_one("#topbar", Static).update(Text(f" agent-tui ─ {model}{extra} ─ {where}"))

    async def push_screen_wait_safe(self, screen: Screen[T]) -> T | None:
        """Push a modal and await its result from any task (not only from a worker)."""
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def settle(result: T | None) -> None:
            if not future.done():
                future.set_result(result)

        self.push_screen(screen, callback=settle)
        try:
            return await future
        except asyncio.CancelledError:
            if screen.is_attached and self.screen is screen:
                screen.dismiss(None)
            raise

    async def ask_approval(self, request: ApprovalRequest, where: str) -> ApprovalDecision:
        """The TUI approver: a modal per request; a cancelled turn takes its modal away."""
        from agent_tui.frontends.tui.screens.approval import ApprovalScreen  # lazy: heavy

        decision = await self.push_screen_wait_safe(ApprovalScreen(request, where=where))
        # A modal closed without an answer (the app shutting down) refuses, never allows.
        return decision if decision is not None else ApprovalDecision("deny")

    # -- tabs (`self.tabs`) -------------------------------------------------------------------

    @property
    def view(self) -> SessionView | None:
        """The session view of the active tab."""
        return self.tabs.view

    @property
    def open_views(self) -> list[SessionView]:
        return self.tabs.views

    async def add_tab(self, *, session_id: str | None = None, continue_: bool = False) -> SessionView:
        return await self.tabs.add(session_id=session_id, continue_=continue_)

    def show_session(self, session_id: str) -> bool:
        return self.tabs.show_session(session_id)

    async def action_new_tab(self) -> None:
        await self.tabs.add()

    def action_close_tab(self) -> None:
        self.tabs.close_active()

    def action_switch_tab(self, step: int) -> None:
        self.tabs.switch(step)

    # -- keys and commands (the commands' substance is in `self.commands`) ----------------------

    def action_help(self) -> None:
        self.commands.action_help()

    def action_blobs(self, ref: str = "") -> None:  # a screen's `o` runs it by name
        self.commands.action_blobs(ref)

    def on_tool_line_open_output(self, event: ToolLine.OpenOutput) -> None:
        self.commands.open_output(event)

    def on_compaction_item_open_record(self, event: CompactionItem.OpenRecord) -> None:
        self.commands.open_record(event)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from self.commands.palette()

    def action_interrupt(self) -> None:
        """Ctrl+C: cancel the running turn; a second press within 2 s quits."""
        now = time.monotonic()
        if now - self._last_interrupt < QUIT_WINDOW:
            self.exit()
            return
        self._last_interrupt = now
        view = self.view
        if view is not None and view.cancel():
            self.notify("Cancelling the turn. Press Ctrl+C again to quit.", timeout=QUIT_WINDOW)
        else:
            self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW)

    def on_key(self, event: events.Key) -> None:
        """A key that reached the App unhandled (focus on the tab strip, say): typed text goes
        to the prompt, so nothing typed is lost; Escape interrupts the running turn."""
        view = self.view
        if view is None or self.screen is not self.screen_stack[0]:
            return
        focused = self.focused
        typed = bool(event.is_printable and event.character)
        # A typed key with the input focused was dispatched here before the first one moved the
        # focus (the input stops every printable key it gets): it belongs to the input too.
        late = typed and isinstance(focused, PromptInput)
        if (
            focused is not None
            and not late
            and any(isinstance(node, SessionView) for node in focused.ancestors_with_self)
        ):
            return  # the session view has seen it (and left it alone on purpose: a binding)
        if event.key == "escape":
            view.interrupt()
        elif event.is_printable and event.character:
            view.prompt.focus()
            view.prompt.insert(event.character)
        else:
            return
        event.stop()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)):
            if not self._warmup.turn_started:
                self._warmup.ahead()  # the user is writing: load what a turn needs meanwhile
            if (view := self._view_or_none()) is not None:
                view.driving.prepare()  # ... and the tab's session: once per session
        event = self._type_ahead.route(self, self._prompt_or_none, event)
        # Benchmarks time a key from its first arrival from the driver (a key no widget stops
        # bubbles back here) to the next refresh; off, this is one check per event.
        if not instrument.enabled() or not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
            return
        started = time.perf_counter()
        await super().on_event(event)
        # Queued behind the forwarded key, so it runs after the key is handled and then drawn.
        target = self.focused or self.screen
        target.call_after_refresh(lambda: instrument.record("key", time.perf_counter() - started))

    def _view_or_none(self) -> SessionView | None:
        """The active tab's view, once mounted."""
        try:
            view = self.view
        except NoMatches:
            return None
        return view if view is not None and view.is_mounted else None

    def _prompt_or_none(self) -> PromptInput | None:
        """The active tab's input, once there is one."""
        view = self._view_or_none()
        return view.prompt if view is not None else None

    def crash_line(self) -> str:  # the traceback is in the log file; the terminal gets one line
        return (
            f"agent-tui stopped on an unexpected error; details in {paths.log_file()}. "
            "Your session is saved: agent-tui --continue resumes it."
        )
