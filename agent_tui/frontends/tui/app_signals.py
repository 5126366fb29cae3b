"""SIGTERM and SIGHUP (terminal closed) end the TUI cleanly, so the terminal is restored and
every running turn saves its interruption: an object the App owns (`AgentApp.signals`)."""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from agent_tui.runtime import shutdown

if TYPE_CHECKING:
    from agent_tui.frontends.tui.widgets.session_view import SessionView

log = logging.getLogger(__name__)


class SignalHost(Protocol):
    """What a signal stops of `AgentApp`: its tabs' turns, its services, the app itself."""

    @property
    def open_views(self) -> Sequence[SessionView]: ...
    async def close_services(self) -> None: ...
    def exit(self, result: None = None, return_code: int = 0) -> None: ...


class SignalExit:
    def __init__(self, app: SignalHost) -> None:
        self.app = app
        self._stopping: asyncio.Future[None] | None = None

    def install(self) -> None:
        """Handle SIGTERM and SIGHUP on the running loop (through the CLI's guard when it set one)."""
        loop = asyncio.get_running_loop()
        guard = shutdown.current()
        if guard is not None:  # the CLI installed it: seen even if this thread is stuck
            guard.attach(loop, self._on_signal)
            return
        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is None:
                continue
            try:
                loop.add_signal_handler(number, self._on_signal, number)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread (tests) or not supported on this platform

    def _on_signal(self, signum: int) -> None:
        """Like Ctrl+C twice: cancel every running turn (their commands' groups are killed and
        the interruption saved), then exit 128 + signum, even with a modal open."""
        self._stopping = asyncio.ensure_future(self.stop(signum))

    async def stop(self, signum: int, wait: float = shutdown.GRACE - 2) -> None:
        log.info("signal %d: cancelling running turns and exiting", signum)
        views = list(self.app.open_views)
        for view in views:
            view.cancel()
        deadline = time.monotonic() + wait
        while any(view.busy for view in views) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the turns' own clean-up signals nothing we can await
        if signum == getattr(signal, "SIGHUP", None):
            # The terminal is gone: Textual's own shutdown would block for ever writing to it
            # (its writer queue fills). The sessions are saved; close the store and end here.
            try:
                await asyncio.wait_for(self.app.close_services(), 2)
            except Exception:
                log.exception("closing the services after SIGHUP failed")
            shutdown.end_now(shutdown.exit_code(signum))
        self.app.exit(return_code=shutdown.exit_code(signum))
