"""How a tab comes to hold a session: opening a new or stored one, the same one under another
model, or none (no model configured, or the session is busy in another process: the chat then
shows it read-only).

An object the view owns (`SessionView.opening`). Opening is a worker of the tab's "agent" group like a turn, so a send
made meanwhile waits in the queue; what the tab then shows comes from session_opening.py's plain
functions. The view's turn and command workers are apart from this (session_view.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from agent_tui.config import ConfigError
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.protocol_events import ends
from agent_tui.core.welcome import welcome_text
from agent_tui.frontends.tui.command_output import show
from agent_tui.frontends.tui.transcript import NoticeEntry
from agent_tui.frontends.tui.widgets import session_opening as opening
from agent_tui.frontends.tui.widgets.mode_line import ModeLine
from agent_tui.frontends.tui.widgets.prompt import PromptArea
from agent_tui.frontends.tui.widgets.status import NoModelPanel
from agent_tui.frontends.tui.widgets.status_line import StatusLineBar
from agent_tui.frontends.tui.widgets.tab_parts import SessionTab
from agent_tui.hooks.status_line import find_command
from agent_tui.runtime import instrument

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.worker import Worker

    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.frontends.tui.command_host import TabCommandHost

W = TypeVar("W", bound="Widget")


class OpeningTab(SessionTab, Protocol):
    """What opening uses of `SessionView`: beside what every collaborator reaches, the session it
    holds (opening sets it) and its commands' host."""

    session: AgentSession | None

    @property
    def commands(self) -> TabCommandHost: ...
    def query_one(self, selector: type[W]) -> W: ...
    def call_after_refresh(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...
    def begin(self, worker: Worker[None]) -> None: ...
    def tasks_changed(self) -> None: ...


class TabOpener:
    def __init__(self, tab: OpeningTab, services: Callable[[], Awaitable[AppServices | None]]) -> None:
        self.tab = tab
        self._get_services = services

    def start(
        self,
        session_id: str | None = None,
        *,
        continue_: bool = False,
        services: AppServices | None = None,
        keep_chat: bool = False,
    ) -> Worker[None]:
        """Opening as a worker of the tab's "agent" group, like a turn (its end: `open_session`)."""
        work = self.open_session(session_id, continue_=continue_, services=services, keep_chat=keep_chat)
        return self.tab.run_worker(
            work, name="open_session", group="agent", exclusive=True, exit_on_error=False
        )

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
        services = services or self.tab.services or await self._get_services()
        if services is None:
            self.tab.meter.placeholder = "the session store could not be opened (see the log)"
            self.tab.meter.refresh()
            return
        self.tab.services = services
        # The services, built behind the first frame, have loaded the store by now.
        from agent_tui.store.leases import SessionBusy  # lazy: start-up (not in the first frame)

        nothing_to_continue = False
        if continue_ and session_id is None:
            session_id = await services.newest_session_id()
            nothing_to_continue = session_id is None
        try:
            if session_id:
                session = await services.resume_session(session_id, approver=self.tab.driver.ask)
            else:
                session = await services.new_session(approver=self.tab.driver.ask)
        except ConfigError as exc:
            await self._without_model(str(exc), session_id)
            return
        except SessionBusy as exc:  # another agent-tui process writes to it: read it only
            await self._without_model(str(exc), session_id, read_only=f"Read-only: {exc}.")
            return
        old, self.tab.session = self.tab.session, session
        if old is not None and old is not session and old.session_id == session.session_id:
            session.keep_background_of(old)  # /model: the same session's commands run on
        if old is not None and old is not session:
            await old.close()
        switched = keep_chat and old is not None and old.session_id == session.session_id
        await self._show(services, session, switched=switched, nothing_to_continue=nothing_to_continue)

    async def _show(
        self,
        services: AppServices,
        session: AgentSession,
        *,
        switched: bool,
        nothing_to_continue: bool = False,
    ) -> None:
        """The tab shows `session`, now its own: its chat (or, `switched` to another model, a
        notice under what is on screen), mode, title, meter and status line."""
        if session.background is not None and self.tab.tasks_changed not in session.background.listeners:
            session.background.listeners.append(self.tab.tasks_changed)
        self.tab.query_one(NoModelPanel).display = False
        self.tab.query_one(ModeLine).show_mode(session.mode)  # a resumed session keeps its mode
        self.tab.meter.cost_line = None
        if switched:
            await self.tab.chat.add(NoticeEntry(f"Model: {session.model}"))
        else:
            await self.tab.chat.load(await opening.entries_to_show(services, session))
            self.tab.chat.show_welcome(self._welcome(services, session))
        if nothing_to_continue:
            await self.tab.chat.add(NoticeEntry("No earlier session in this directory: started a new one."))
        self.tab.rename(session.shown_title or "new")
        self.tab.call_after_refresh(instrument.mark, "chat_shown")
        # The first measure counts every message (~0.1 s per 1 000): the chat is already on
        # screen, sends made meanwhile wait in the queue, and the count runs off the UI loop.
        self.tab.meter.placeholder = f"measuring {len(session.history)} messages…"
        self.tab.meter.show(None)
        self.tab.budget = await asyncio.to_thread(session.measure)
        self.tab.meter.show(self.tab.budget)
        self._attach_status_line(session)

    def _attach_status_line(self, session: AgentSession) -> None:
        """The status line's command for this session (a project's only in a trusted folder)."""

        settings = session.config.status_line
        trusted = session.config.provenance.folder_trusted
        command = find_command(settings.command, Path(session.workspace), trusted=trusted)
        self.tab.query_one(StatusLineBar).attach(session, command, settings.timeout)

        self.tab.query_one(PromptArea).set_editing_mode(session.config.ui.editing_mode)

    def _welcome(self, services: AppServices, session: AgentSession) -> str | None:
        """The welcome block for a new, empty session (none over a conversation)."""
        if session.history:
            return None

        return welcome_text(session, services.config.provenance.folder_trusted)

    async def _without_model(
        self,
        reason: str,
        session_id: str | None,
        read_only: str = "Read-only: no model is configured (/model NAME sets one).",
    ) -> None:
        self.tab.session = None
        self.tab.query_one(NoModelPanel).explain(reason)
        self.tab.meter.placeholder = "no model configured"
        self.tab.meter.show(None)
        if session_id and self.tab.services is not None:
            entries, title = await opening.read_only(self.tab.services, session_id)
            await self.tab.chat.load(entries)
            self.tab.query_one(NoModelPanel).display = False
            await self.tab.chat.add(NoticeEntry(read_only, "warning"))
            self.tab.rename(title)

    async def switch_model(self, name: str) -> None:
        if not name:
            current = self.tab.session.model if self.tab.session else "none"
            show(
                self.tab.commands,
                "/model",
                f"Model: {current}\n/model NAME switches this tab to another model.",
            )
            return
        services = self.tab.services or await self._get_services()
        if services is None:
            return
        switched, left = opening.with_model(services, name)
        if left:
            self.tab.commands.notify(
                f"{name} is not on the configured server: {', '.join(left)} from [model] stay behind."
            )
        if self.tab.session is None:  # no model configured yet: the tab opens a session with this one
            self.tab.services = switched
            self.tab.begin(self.start(services=switched, keep_chat=True))
            return
        work = self._set_model(name)
        self.tab.begin(
            self.tab.run_worker(work, name="switch_model", group="agent", exclusive=True, exit_on_error=False)
        )

    async def _set_model(self, name: str) -> None:
        """The driver's `set_model` rebuilds the session on the other model (the same
        conversation, its background commands running on); the tab then shows it."""

        driver = self.tab.driver
        async for event in driver.drive(ops.SetModel(name)):
            if not ends(ops.SetModel(name), event):
                continue
            if isinstance(event, pe.OperationRefused):  # nothing changed: the old session goes on
                raise ModelNotSwitched(event.message)
            break
        if driver.session is None or driver.session is self.tab.session:
            return
        self.tab.services, self.tab.session = driver.services, driver.session
        await self._show(driver.services, driver.session, switched=True)


class ModelNotSwitched(RuntimeError):
    """The driver refused /model's `set_model` (its reason is the message)."""
