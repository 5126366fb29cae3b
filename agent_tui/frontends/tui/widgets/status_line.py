"""The status line under the meter (agent_tui/status_line.py runs the command).

It refreshes when the session's budget or cost changes, at most once per `MIN_INTERVAL`, and
never more than one run at a time; each run happens in a worker, so a slow or hanging command
never holds the interface up: at its time limit it is killed and the line says so.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from textual.widgets import Static

from agent_tui import __version__
from agent_tui.hooks.status_line import payload, render

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.hooks.status_line import StatusCommand

MIN_INTERVAL = 0.3
"""Seconds between two runs of the command, however often the session changes."""


class StatusLineBar(Static):
    """One line under the meter; hidden while no command is configured."""

    def on_mount(self) -> None:
        self.display = False
        self.command: StatusCommand | None = None
        self.timeout = 2.0
        self._session: AgentSession | None = None
        self._running = False
        self._again = False
        self._last = 0.0
        self.runs = 0
        """Finished runs (tests wait on it)."""

    def attach(self, session: AgentSession, command: StatusCommand | None, timeout: float) -> None:
        """Show `command`'s line for `session` (None: hide the line)."""
        self._session, self.command, self.timeout = session, command, timeout
        self.display = command is not None
        self.request()

    def request(self) -> None:
        """Run the command soon: now if the last run was long enough ago, else after the interval."""
        if self.command is None or self._session is None:
            return
        if self._running:
            self._again = True
            return
        wait = self._last + MIN_INTERVAL - time.monotonic()
        if wait > 0:
            self._again = True
            self.set_timer(wait, self._from_timer)
            return
        self._running = True
        self.run_worker(self._run(), group="status-line", exclusive=False, exit_on_error=False)

    def _from_timer(self) -> None:
        if self._again and not self._running:
            self._again = False
            self.request()

    async def _run(self) -> None:

        session, command = self._session, self.command
        try:
            if session is None or command is None:
                return
            budget = session.last_budget
            data = payload(
                session_id=session.session_id,
                model=session.model,
                workspace=Path(session.workspace),
                cost=session.cost_total,
                used=budget.used if budget is not None else None,
                window=budget.total if budget is not None else None,
                version=__version__,
            )
            text = await render(command.command, data, cwd=Path(session.workspace), timeout=self.timeout)
            self.update(text)
        finally:
            self._running = False
            self._last = time.monotonic()
            self.runs += 1
            if self._again:
                self._again = False
                self.request()
