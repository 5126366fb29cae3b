"""The cyclic garbage collector held off while start-up imports, then what start-up built frozen.

Start-up builds ~120 000 objects that live as long as the process (modules, classes, functions,
Textual's styles) and almost no cyclic garbage (~550 unreachable objects once the TUI is up).
With the collector on, CPython runs ~180 collections over them meanwhile, the older generations
re-scanning objects that will never die: ~10% of the TUI's CPU in its first seconds. So the entry
pauses the collector before the first import, and whoever owns the start-up resumes it once the
heavy imports are done: the TUI when its warm-up thread has imported the agent stack, every other
command as soon as typer has chosen it. Resuming freezes what exists (`gc.freeze`: those objects
are never scanned again) and turns the collector back on.

Only the entry pauses: code that imports agent_tui as a library (tests, the ACP client helpers)
never runs without a collector.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_paused = False


def pause() -> None:
    """Turn the collector off until `resume` (a no-op if something else already turned it off)."""
    global _paused
    with _lock:
        if gc.isenabled():
            gc.disable()
            _paused = True


def resume() -> None:
    """Freeze what start-up built and turn the collector back on; a no-op unless `pause` turned it
    off (safe to call from any thread, any number of times)."""
    global _paused
    with _lock:
        if _paused:
            _paused = False
            gc.freeze()
            gc.enable()


def paused() -> bool:
    """True between `pause` and `resume`."""
    return _paused


@contextlib.contextmanager
def held() -> Iterator[None]:
    """The collector off while a command imports its work after typer's pick (as the entry holds
    it for the CLI's own imports), then resumed with what was built frozen: `run` imports the
    composition root, the session and the tools there, ~50 ms of CPU more with the collector on."""
    pause()
    try:
        yield
    finally:
        resume()
