"""/context over a served session (`agent-tui --attach`): the same screen, its figures read from
the server in one request (frontends/server/reads.py builds them with core/context_report.py, as the
in-process screen does) instead of off a session in this process."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.screens.dialogs import Dialog

if TYPE_CHECKING:
    from agent_tui.frontends.server.remote import RemoteContext


class RemoteContextScreen(ContextScreen):
    def __init__(self, remote: RemoteContext) -> None:
        Dialog.__init__(self)  # not ContextScreen's: there is no session here to read
        self.remote = remote
        self.report = remote.report
        self.target_ratio = remote.target_ratio
        self.savings = None

    async def recoverable_text(self) -> str | None:
        return self.remote.recoverable

    async def compaction_savings(self) -> dict[str, int]:
        return self.remote.savings
