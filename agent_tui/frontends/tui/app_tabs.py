"""The App's tabs: opening, switching, closing, and their labels (a number, `⋯` while busy, the
session's title).

A widget the App owns and composes (`AgentApp.tabs`): the tab strip is where the session views'
messages pass on their way up, so it handles their label changes itself, and the tab list
(`views`) is its state, which the App's signal handling and shutdown also walk. It sees the App
through `TabsHost`, so it imports neither the App nor its commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual import work
from textual.widgets import TabbedContent, TabPane, Tabs

from agent_tui.frontends.tui.screens.dialogs import ConfirmScreen
from agent_tui.frontends.tui.textual_compat import relabel_tab
from agent_tui.frontends.tui.widgets.session_view import SessionView

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from agent_tui.compose.factory import AppServices
    from agent_tui.frontends.tui.command_host import AppActions
    from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest


class TabsHost(Protocol):
    """What the tabs use of `AgentApp`: its services, its approver, the actions a tab's commands
    reach, the top bar and its notices."""

    @property
    def commands(self) -> AppActions: ...
    async def services(self) -> AppServices | None: ...
    async def ask_approval(self, request: ApprovalRequest, where: str) -> ApprovalDecision: ...
    async def push_screen_wait_safe(self, screen: Screen[Any]) -> Any: ...
    def refresh_topbar(self) -> None: ...
    def notify(self, message: str, *, severity: SeverityLevel = "information") -> None: ...


class SessionTabs(TabbedContent):
    """Tabs of sessions, one `SessionView` each."""

    def __init__(self, host: TabsHost) -> None:
        super().__init__(id="tabs")
        self.host = host
        self.views: list[SessionView] = []
        """Every open tab's view, in the order they were opened."""
        self.opened = 0

    @property
    def view(self) -> SessionView | None:
        """The session view of the active tab."""
        pane = self.active_pane
        return pane.query_one(SessionView) if pane is not None else None

    async def add(self, *, session_id: str | None = None, continue_: bool = False) -> SessionView:
        self.opened += 1
        number = self.opened
        view = SessionView(
            self.host.services,
            self.host.ask_approval,
            number=number,
            actions=self.host.commands,
            session_id=session_id,
            continue_=continue_,
        )
        self.views.append(view)
        pane_id = f"tab-{number}"
        await self.add_pane(TabPane(f"{number} new", view, id=pane_id))
        self.active = pane_id
        view.prompt.focus()
        return view

    def show_session(self, session_id: str) -> bool:
        """Switch to the tab that has this session open; False when none has."""
        for view in self.views:
            if view.session is not None and view.session.session_id == session_id:
                self.active = f"tab-{view.number}"
                view.prompt.focus()
                self.host.notify(f"Session already open in tab {view.number}: switched to it.")
                return True
        return False

    def on_session_view_tasks_changed(self, event: SessionView.TasksChanged) -> None:
        self.host.refresh_topbar()

    def on_session_view_title_changed(self, event: SessionView.TitleChanged) -> None:
        self._relabel(event.view, event.title)
        self.host.refresh_topbar()

    def on_session_view_busy_changed(self, event: SessionView.BusyChanged) -> None:
        """A tab working in the background says so on its label (`2 ⋯ refactor`)."""
        self._relabel(event.view, event.view.title)
        self.host.refresh_topbar()  # a custom command's `model:` served the turn that just ended

    def _relabel(self, view: SessionView, title: str) -> None:
        relabel_tab(self.query_one(Tabs), self.get_tab(f"tab-{view.number}"), tab_title(view, title))

    def on_tabbed_content_tab_activated(self) -> None:
        view = self.view
        if view is not None:
            view.prompt.focus()
        self.host.refresh_topbar()

    @work(group="close-tab", exclusive=True, exit_on_error=False)
    async def close_active(self) -> None:
        # A worker: awaiting the confirmation inside a plain handler would block the very
        # message loop that has to process the answer.
        view = self.view
        if view is None:
            return
        if view.busy and view.session is not None and view.session.busy:
            if not await self.host.push_screen_wait_safe(
                ConfirmScreen(f"A turn is running in tab {view.number}. Close it anyway?")
            ):
                return
        await self.close_view(view)

    async def close_view(self, view: SessionView) -> None:
        view.cancel()
        if view in self.views:
            self.views.remove(view)
        if view.session is not None:
            await view.session.close()
        await self.remove_pane(f"tab-{view.number}")
        if not self.tab_count:
            await self.add()

    def switch(self, step: int) -> None:
        panes = [pane.id for pane in self.query(TabPane) if pane.id is not None]
        if self.active in panes:
            self.active = panes[(panes.index(self.active) + step) % len(panes)]


def tab_title(view: SessionView, title: str) -> str:
    """The tab's label: number, a `⋯` while its session works, title."""
    return f"{view.number} {'⋯ ' if view.busy else ''}{title}"
