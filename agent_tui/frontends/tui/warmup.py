"""The agent stack imported in threads behind the first frame, in two stages, and frozen.

Done on the event loop, its ~1 s of imports (store, tools, provider; ~10 s on a busy machine)
would freeze the prompt the user types in. The app starts the first stage right after the first
frame: what opening a session and showing the meter need. Whatever needs the stack (the services
factory) waits for it, and what does not (the trust question) goes first.

The second stage is what only a turn needs: the HTTP client (httpx, httpcore, anyio's backend and
the CA bundle), Markdown for the reply, the compaction chain — ~0.3 s of CPU the idle prompt has
no use for. It starts when the user shows intent (the first key or paste, a message given on the
command line, a resumed session whose chat renders Markdown at once); typing a message takes
longer than the loading, and a send that beats it only waits for what is left.
"""

from __future__ import annotations

import asyncio
import gc
import logging

from agent_tui.llm import http_common
from agent_tui.llm.startup import preload
from agent_tui.runtime import gc_pause, instrument

log = logging.getLogger(__name__)


def _import_all(names: tuple[str, ...]) -> None:
    import importlib

    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            log.debug("warming %s failed", name, exc_info=True)


def warm_imports() -> None:
    """Import what building services and opening a session need (run in a thread)."""

    preload(http=False)  # the window (the meter's percent), in its own thread
    _import_all(
        (
            "agent_tui.store",
            "agent_tui.compose.factory",
            "agent_tui.agent.session",
            "agent_tui.tools.registry",
            "agent_tui.llm.provider",
        )
    )
    # litellm is not warmed here: OpenAI-compatible and Anthropic models never need it, and a
    # model that does starts its import in the background when its Provider is built.


def warm_for_a_turn() -> None:
    """Import what the first turn needs beyond an open session (run in a thread)."""

    http_common.warm()  # httpx and the CA bundle
    _import_all(("rich.markdown", "agent_tui.context.compaction"))


def _warm_and_freeze() -> None:
    try:
        warm_imports()
    finally:
        # litellm and friends leave ~1M long-lived objects; without this every full GC pass walks
        # them all, a pause of 0.1-0.3 s that lands on some keystroke.
        gc.freeze()
        gc_pause.resume()  # the entry held the collector off for the imports up to here


def _warm_turn_and_freeze() -> None:
    warm_for_a_turn()
    gc.freeze()
    instrument.mark_modules("warm_turn_done")


class Warmup:
    """The two stages, each started once, awaited by any number of callers."""

    def __init__(self) -> None:
        self._running: asyncio.Future[None] | None = None
        self._turn: asyncio.Future[None] | None = None

    def start(self) -> None:
        if self._running is None:
            self._running = asyncio.ensure_future(asyncio.to_thread(_warm_and_freeze))

    async def done(self) -> None:
        self.start()
        assert self._running is not None
        await asyncio.shield(self._running)

    def ahead(self) -> None:
        """The user is about to need a turn: load its stage (after the first, which it builds
        on); a no-op once started."""
        if self._turn is None:
            instrument.mark_modules("warm_turn_start")  # what the idle prompt had loaded
            self._turn = asyncio.ensure_future(self._after_first())

    @property
    def turn_started(self) -> bool:
        return self._turn is not None

    async def _after_first(self) -> None:
        await self.done()
        await asyncio.to_thread(_warm_turn_and_freeze)
