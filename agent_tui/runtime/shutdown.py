"""SIGTERM and SIGHUP handled like Ctrl-C, with a hard deadline nothing can hold up.

The orderly path: the signal cancels the running turn (its command's process group is killed,
the interruption is saved), the app or the headless run ends, exit 128 + signal (143, 129).

Python runs signal handlers only on the main thread, between bytecodes. A TUI whose terminal
went away was seen sitting for ever with every thread in a futex wait: the main thread never
came back to Python, so neither a `signal.signal` handler nor asyncio's `add_signal_handler`
(which reads the same wakeup pipe from the event loop) ever ran. Here the C-level handler's
wakeup byte goes to a pipe read by our own thread instead, so the signal is seen whatever the
main thread is doing. That thread asks the event loop to stop (the orderly path) and starts a
timer: if the process is still alive `GRACE` seconds later, every command group is SIGKILLed
and the process ends with `os._exit`. A second signal ends it at once. `arm_exit_deadline`
bounds a normal exit the same way (interpreter shutdown joins executor threads unboundedly).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Callable

from agent_tui.runtime import children
from agent_tui.runtime.logs import current_log

log = logging.getLogger(__name__)

GRACE = 6.0
"""Seconds the orderly shutdown may take before the process ends anyway."""
SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s)


def exit_code(signum: int) -> int:
    return 128 + signum


class ShutdownGuard:
    """Watches for SIGTERM/SIGHUP on its own thread; see the module docstring."""

    def __init__(self, grace: float = GRACE) -> None:
        self.grace = grace
        self.signum: int | None = None
        """The first shutdown signal received, if any."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._callback: Callable[[int], object] | None = None
        self._lock = threading.Lock()

    @property
    def exit_code(self) -> int | None:
        return None if self.signum is None else exit_code(self.signum)

    def install(self) -> bool:
        """Route the signals to the guard thread (main thread only; False elsewhere)."""
        if threading.current_thread() is not threading.main_thread() or not SIGNALS:
            return False
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)
        signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        for sig in SIGNALS:
            signal.signal(sig, _noop)
        threading.Thread(target=self._watch, args=(read_fd,), name="shutdown-guard", daemon=True).start()
        return True

    def attach(self, loop: asyncio.AbstractEventLoop, callback: Callable[[int], object]) -> None:
        """`callback(signum)` runs on `loop` when a shutdown signal arrives (the orderly path)."""
        with self._lock:
            self._loop, self._callback = loop, callback
            pending = self.signum
        if pending is not None:
            loop.call_soon_threadsafe(callback, pending)

    def detach(self) -> None:
        with self._lock:
            self._loop = self._callback = None

    def _watch(self, fd: int) -> None:
        while True:
            try:
                data = os.read(fd, 64)
            except OSError:
                return
            for number in data:
                if number in SIGNALS:
                    self.received(number)
                else:
                    self._wake_loop()

    def _wake_loop(self) -> None:
        """Another signal (Ctrl-C): its Python handler (asyncio's) runs on the main thread once
        that thread runs Python again. The kernel may have given the signal to another thread
        while the loop sleeps with nothing scheduled, and the wake-up byte that would have woken
        the loop came here, since this pipe is the wake-up fd: wake the loop in its place."""
        with self._lock:
            loop = self._loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(_nothing)
            except RuntimeError:  # the loop is closed: nothing sleeps in it
                pass

    def received(self, signum: int) -> None:
        """A shutdown signal: the orderly path now, the hard exit after the grace period."""
        with self._lock:
            first = self.signum is None
            if first:
                self.signum = signum
            loop, callback = self._loop, self._callback
        if not first:
            log.warning("second shutdown signal %d: exiting now", signum)
            self.hard_exit()
        log.info("signal %d: shutting down (at most %.0f s)", signum, self.grace)
        timer = threading.Timer(self.grace, self.hard_exit)
        timer.daemon = True
        timer.start()
        if loop is None or callback is None:
            self.hard_exit()  # nothing to stop in order (start-up or tear-down): stop now
            return
        try:
            loop.call_soon_threadsafe(callback, signum)
        except RuntimeError:  # the loop is closed: the orderly path is over
            self.hard_exit()

    def hard_exit(self) -> None:
        """Kill every command group and end the process, whatever the other threads do."""
        children.kill_all()
        code = self.exit_code or 1
        log.warning("exiting with %d without waiting further; where each thread was:", code)
        _dump_threads()
        os._exit(code)


def _dump_threads() -> None:
    """Every thread's stack into the log: what held up the orderly exit, for the bug report."""
    import faulthandler

    try:
        with current_log().open("a", encoding="utf-8") as fh:
            faulthandler.dump_traceback(fh, all_threads=True)
    except (OSError, ValueError, RuntimeError):
        pass


def _nothing() -> None:
    """Scheduled only to wake the event loop."""


def _noop(signum: int, frame: object) -> None:
    """The Python-level handler: the guard thread has already acted on the wakeup byte."""


_guard: ShutdownGuard | None = None


def install() -> ShutdownGuard:
    """The process's guard, installed on first call (from the main thread, before the loop)."""
    global _guard
    if _guard is None:
        _guard = ShutdownGuard()
        _guard.install()
    return _guard


def current() -> ShutdownGuard | None:
    return _guard


def end_now(code: int) -> None:
    """End the process at once after an orderly save (no terminal left to restore)."""
    children.kill_all()
    logging.shutdown()
    os._exit(code)


def arm_exit_deadline(code: int, grace: float = GRACE) -> None:
    """The process is about to end: if interpreter shutdown (joining worker threads, closing
    the store) is still going in `grace` seconds, end it anyway, after killing command groups."""

    def expire() -> None:
        children.kill_all()
        log.warning("exit still not done after %.0f s; ending with %d; where each thread was:", grace, code)
        _dump_threads()
        os._exit(code)

    timer = threading.Timer(grace, expire)
    timer.daemon = True
    timer.start()
