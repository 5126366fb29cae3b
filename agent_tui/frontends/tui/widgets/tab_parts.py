"""The part of `SessionView` every collaborator it owns reaches: its services and driver, its chat
and meter, the budget it shows, its title and the workers it starts.

The commands' host (tab_host.py) and the opener (tab_opening.py) each see the view through a
protocol; this is what the two share, declared once so the view's side of both stays one shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.worker import Worker

    from agent_tui.compose.factory import AppServices
    from agent_tui.context.budget import ContextBudget
    from agent_tui.core.driver import SessionDriver
    from agent_tui.frontends.tui.widgets.chat import ChatPane
    from agent_tui.frontends.tui.widgets.meter import ContextMeter


class SessionTab(Protocol):
    """A tab's widgets, driver and workers, as its collaborators use them."""

    services: AppServices | None

    @property
    def driver(self) -> SessionDriver: ...
    @property
    def chat(self) -> ChatPane: ...
    @property
    def meter(self) -> ContextMeter: ...
    @property
    def budget(self) -> ContextBudget | None: ...
    @budget.setter
    def budget(self, value: ContextBudget | None) -> None: ...
    def rename(self, title: str, *, named: bool = False) -> None: ...
    def run_worker(
        self,
        work: Any,
        *,
        name: str | None = "",
        group: str = "default",
        exclusive: bool = False,
        exit_on_error: bool = True,
    ) -> Worker[Any]: ...
