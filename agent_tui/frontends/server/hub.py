"""The sessions a server holds open: one `SessionDriver` each (core/driver.py), all on the
server's services (one store, one workspace, the same trust, sandbox and approval rules as the
TUI for that folder). Every session's approvals are the driver's: they wait for a client."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.driver import SessionDriver
from agent_tui.store.forks import fork_session

if TYPE_CHECKING:
    from agent_tui.compose.factory import AppServices


class UnknownSession(KeyError):
    pass


class Hub:
    def __init__(self, services: AppServices, approval_timeout: float) -> None:
        self.services = services
        self.approval_timeout = approval_timeout
        self.drivers: dict[str, SessionDriver] = {}
        self.closed = False

    def _driver(self) -> SessionDriver:
        return SessionDriver(self.services, approval_timeout=self.approval_timeout)

    async def create(self, title: str | None = None) -> SessionDriver:
        driver = self._driver()
        driver.session = await self.services.new_session(driver.approver, title=title)
        self.drivers[driver.session.session_id] = driver
        return driver

    async def resume(self, session_id: str) -> SessionDriver:
        """The open session, or the stored one opened (ConfigError: no such session)."""
        if session_id in self.drivers:
            return self.drivers[session_id]
        driver = self._driver()
        driver.session = await self.services.resume_session(session_id, driver.approver)
        self.drivers[session_id] = driver
        return driver

    async def fork(self, session_id: str, before: int | None, title: str | None) -> SessionDriver:

        info = await fork_session(self.services.store.sessions, session_id, before, title)
        return await self.resume(info.id)

    def get(self, session_id: str) -> SessionDriver:
        try:
            return self.drivers[session_id]
        except KeyError:
            raise UnknownSession(session_id) from None

    async def close(self) -> None:
        """End every session's work (the commands it started with it), then the services."""
        if self.closed:
            return
        self.closed = True
        for driver in list(self.drivers.values()):
            await driver.close()
        self.drivers.clear()
        await self.services.close()
