"""How a tab comes to hold a session: opening a new or stored one, the same one under another
model, or none (no model configured, or the session is busy in another process: the chat then
shows it read-only).

A mixin of `SessionView`. Opening is a worker of the tab's "agent" group like a turn, so a send
made meanwhile waits in the queue; what the tab then shows comes from session_opening.py's plain
functions. The view's turn and command workers are apart from this (session_view.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from agent_tui.config import ConfigError
from agent_tui.frontends.tui.command_output import show
from agent_tui.frontends.tui.transcript import NoticeEntry
from agent_tui.frontends.tui.widgets import session_opening as opening
from agent_tui.frontends.tui.widgets.mode_line import ModeLine
from agent_tui.frontends.tui.widgets.status import NoModelPanel
from agent_tui.runtime import instrument
from agent_tui.store.leases import SessionBusy

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from textual.worker import Worker

    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.frontends.tui.widgets.tab_host import TabHost
    from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest

    class _Tab(TabHost):
        """What opening uses of `SessionView` besides what its commands see (tab_host.py), so
        mypy checks it against the view."""

        session: AgentSession | None
        _get_services: Callable[[], Awaitable[AppServices | None]]

        def rename(self, title: str) -> None: ...
        def _begin(self, worker: Worker[None]) -> None: ...
        def _tasks_changed(self) -> None: ...
        async def approve(self, request: ApprovalRequest) -> ApprovalDecision: ...
else:
    _Tab = object


class TabOpening(_Tab):
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
        nothing_to_continue = False
        if continue_ and session_id is None:
            session_id = await services.newest_session_id()
            nothing_to_continue = session_id is None
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
        self.query_one(ModeLine).show_mode(session.mode)  # a resumed session keeps its mode
        self.meter.cost_line = None
        if keep_chat and old is not None and old.session_id == session.session_id:
            await self.chat.add(NoticeEntry(f"Model: {session.model}"))
        else:
            await self.chat.load(await opening.entries_to_show(services, session))
            self.chat.show_welcome(self._welcome(services, session))
        if nothing_to_continue:
            await self.chat.add(NoticeEntry("No earlier session in this directory: started a new one."))
        self.rename(session.title or opening.title_from(session.history) or "new")
        self.call_after_refresh(instrument.mark, "chat_shown")
        # The first measure counts every message (~0.1 s per 1 000): the chat is already on
        # screen, sends made meanwhile wait in the queue, and the count runs off the UI loop.
        self.meter.placeholder = f"measuring {len(session.history)} messages…"
        self.meter.show(None)
        self.budget = await asyncio.to_thread(session.measure)
        self.meter.show(self.budget)
        self._attach_status_line(session)

    def _attach_status_line(self, session: AgentSession) -> None:
        """The status line's command for this session (a project's only in a trusted folder)."""
        from agent_tui.frontends.tui.widgets.status_line import StatusLineBar
        from agent_tui.hooks.status_line import find_command

        settings = session.config.status_line
        trusted = session.config.provenance.folder_trusted
        command = find_command(settings.command, Path(session.workspace), trusted=trusted)
        self.query_one(StatusLineBar).attach(session, command, settings.timeout)
        from agent_tui.frontends.tui.widgets.prompt import PromptArea

        self.query_one(PromptArea).set_editing_mode(session.config.ui.editing_mode)

    def _welcome(self, services: AppServices, session: AgentSession) -> str | None:
        """The welcome block for a new, empty session (none over a conversation)."""
        if session.history:
            return None
        from agent_tui.core.welcome import welcome_text

        return welcome_text(session, services.config.provenance.folder_trusted)

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
            entries, title = await opening.read_only(self.services, session_id)
            await self.chat.load(entries)
            self.query_one(NoModelPanel).display = False
            await self.chat.add(NoticeEntry(read_only, "warning"))
            self.rename(title)

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
        self.services, left = opening.with_model(services, name)
        if left:
            self.notify(
                f"{name} is not on the configured server: {', '.join(left)} from [model] stay behind."
            )
        session_id = self.session.session_id if self.session else None
        self._begin(self.open_session(session_id, services=self.services, keep_chat=True))
