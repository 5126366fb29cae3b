"""The App's tabs: opening, switching, closing, and their labels (a number, `⋯` while busy, the
session's title).

A mixin of `AgentApp`, like app_commands.py; the tab list is public state of the App (`views`),
which the signal handling and the shutdown also walk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.widgets import TabbedContent, TabPane

from agent_tui.frontends.tui.widgets.session_view import SessionView

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from agent_tui.compose.factory import AppServices
    from agent_tui.frontends.tui.command_host import AppActions
    from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest

    class _AppHost(App[None], AppActions):
        """What the mixin uses of `AgentApp`, so mypy checks it against the real App API."""

        views: list[SessionView]
        tabs_opened: int

        async def services(self) -> AppServices | None: ...
        async def ask_approval(self, request: ApprovalRequest, where: str) -> ApprovalDecision: ...
        async def push_screen_wait_safe(self, screen: Screen[Any]) -> Any: ...
        def _update_topbar(self) -> None: ...
else:
    _AppHost = object


class AppTabs(_AppHost):
    """Tabs of sessions (mixed into `AgentApp`)."""

    @property
    def view(self) -> SessionView | None:
        """The session view of the active tab."""
        pane = self.query_one(TabbedContent).active_pane
        return pane.query_one(SessionView) if pane is not None else None

    async def add_tab(self, *, session_id: str | None = None, continue_: bool = False) -> SessionView:
        self.tabs_opened += 1
        number = self.tabs_opened
        view = SessionView(
            self.services,
            self.ask_approval,
            number=number,
            actions=self,
            session_id=session_id,
            continue_=continue_,
        )
        self.views.append(view)
        tabs = self.query_one(TabbedContent)
        pane_id = f"tab-{number}"
        await tabs.add_pane(TabPane(f"{number} new", view, id=pane_id))
        tabs.active = pane_id
        view.prompt.focus()
        return view

    def show_session(self, session_id: str) -> bool:
        """Switch to the tab that has this session open; False when none has."""
        for view in self.views:
            if view.session is not None and view.session.session_id == session_id:
                self.query_one(TabbedContent).active = f"tab-{view.number}"
                view.prompt.focus()
                self.notify(f"Session already open in tab {view.number}: switched to it.")
                return True
        return False

    def on_session_view_tasks_changed(self, event: SessionView.TasksChanged) -> None:
        self._update_topbar()

    def on_session_view_title_changed(self, event: SessionView.TitleChanged) -> None:
        tabs = self.query_one(TabbedContent)
        tab = tabs.get_tab(f"tab-{event.view.number}")
        tab.label = tab_title(event.view, event.title)
        self._update_topbar()

    def on_session_view_busy_changed(self, event: SessionView.BusyChanged) -> None:
        """A tab working in the background says so on its label (`2 ⋯ refactor`)."""
        tab = self.query_one(TabbedContent).get_tab(f"tab-{event.view.number}")
        tab.label = tab_title(event.view, event.view.title)
        self._update_topbar()  # a custom command's `model:` served the turn that just ended

    def on_tabbed_content_tab_activated(self) -> None:
        view = self.view
        if view is not None:
            view.prompt.focus()
        self._update_topbar()

    async def action_new_tab(self) -> None:
        await self.add_tab()

    @work(group="close-tab", exclusive=True, exit_on_error=False)
    async def action_close_tab(self) -> None:
        # A worker: awaiting the confirmation inside a plain handler would block the very
        # message loop that has to process the answer.
        view = self.view
        if view is None:
            return
        if view.busy and view.session is not None and view.session.busy:
            from agent_tui.frontends.tui.screens.dialogs import ConfirmScreen

            if not await self.push_screen_wait_safe(
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
        tabs = self.query_one(TabbedContent)
        await tabs.remove_pane(f"tab-{view.number}")
        if not tabs.tab_count:
            await self.add_tab()

    def action_switch_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        panes = [pane.id for pane in tabs.query(TabPane) if pane.id is not None]
        if tabs.active in panes:
            tabs.active = panes[(panes.index(tabs.active) + step) % len(panes)]


def tab_title(view: SessionView, title: str) -> str:
    """The tab's label: number, a `⋯` while its session works, title."""
    return f"{view.number} {'⋯ ' if view.busy else ''}{title}"
