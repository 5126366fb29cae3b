"""Regex work with a time budget, off the event loop, abandoned at once when cancelled.

Python's `re` backtracks: `(a|aa)+$` on a line of forty `a`s and a `b` runs for hours, holds the
GIL the whole time (so a worker thread freezes the event loop as surely as running it inline)
and ignores Ctrl-C. The `regex` package (already installed: tiktoken needs it) speaks the same
syntax (V0 is `re`-compatible), takes a `timeout` per call and, with `concurrent=True`, releases
the GIL while it matches. So every search here runs in a daemon thread with the GIL released and
stops at a deadline; a caller that is cancelled returns at once and the abandoned thread ends by
itself at the deadline, never blocking exit (it is a daemon, not an executor worker that
`asyncio.run` would join). `benchmarks/regex_search.py` measures the cost against plain `re`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import regex

T = TypeVar("T")

DEFAULT_BUDGET = 5.0
"""Seconds one search may take ([tools] search_timeout)."""

Pattern = Any
"""A compiled `regex` pattern (the package ships no type information)."""


class SearchStopped(Exception):
    """The search used its whole time budget; the message says what to do."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        super().__init__(stopped_message(budget))


def stopped_message(budget: float) -> str:
    return f"search stopped after {budget:g} s; narrow the pattern (or raise [tools] search_timeout)"


def compile_regex(pattern: str, flags: int = 0) -> Pattern:
    """Compile with `re` syntax; a bad pattern raises `regex.error` (a ValueError-like error)."""
    return regex.compile(pattern, flags | regex.V0)


IGNORECASE: int = regex.IGNORECASE
MULTILINE: int = regex.MULTILINE
error: type[Exception] = regex.error


class Deadline:
    """The time left for one search; `search` is `pattern.search` that stops at the deadline."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self._end = time.monotonic() + budget
        self.cancelled = threading.Event()
        """Set by the awaiting side when it gave up: the worker stops at its next call."""

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def check(self) -> None:
        if self.cancelled.is_set() or self.remaining() <= 0:
            raise SearchStopped(self.budget)

    def search(self, pattern: Pattern, text: str, pos: int = 0) -> Any:
        self.check()
        try:
            return pattern.search(text, pos, concurrent=True, timeout=max(self.remaining(), 0.001))
        except TimeoutError:
            raise SearchStopped(self.budget) from None


async def in_daemon_thread(fn: Callable[[], T], deadline: Deadline | None = None) -> T:
    """Run `fn` in a daemon thread. Cancelling the await returns at once (the thread is told
    through `deadline.cancelled` and ends by its deadline); exit never waits for it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def deliver(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            result: Any = fn()
            ok = True
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting side
            result, ok = exc, False
        try:
            loop.call_soon_threadsafe(deliver, ok, result)
        except RuntimeError:  # the loop closed while we searched: nobody is waiting
            pass

    threading.Thread(target=work, name="bounded-search", daemon=True).start()
    try:
        return await future
    except BaseException:
        if deadline is not None:  # given up: a worker still running stops at its next call
            deadline.cancelled.set()
        raise
