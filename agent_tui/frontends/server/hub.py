"""The sessions a server holds open: one `SessionDriver` each (core/driver.py), all on the
server's services (one store, one workspace, the same trust, sandbox and approval rules as the
TUI for that folder). Every session's approvals are the driver's: they wait for a client. What
changes a session is its driver's operation, a fork too: the hub only opens what it made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.driver import SessionDriver

if TYPE_CHECKING:
    from agent_tui.compose.factory import AppServices


class UnknownSession(KeyError):
    pass


class NotForked(Exception):
    """The `fork` operation was refused (a fork point the store will not take): its message."""


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
        """The open session's `fork` operation, and the copy it stored opened (UnknownSession:
        not open; NotForked: refused). Its followers see the `session_forked` event, as when a
        client submits the operation itself."""
        driver = self.get(session_id)
        start = driver.log.last_id
        await driver.submit(ops.Fork(before, title))
        # The handler's answer is the last event it logs, and nothing from there to here lets
        # another task run (a hub's driver has no sink): the newest fork event is this request's,
        # even when another fork of the session ran meanwhile.
        for _, event in reversed(driver.log.after(start)):
            if isinstance(event, pe.SessionForked):
                return await self.resume(event.session_id)
            if isinstance(event, pe.OperationRefused) and event.operation == ops.Fork.type:
                raise NotForked(event.message)
        raise NotForked("the fork operation gave no answer")

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
