"""The agent stack imported in a thread behind the first frame, and its long-lived objects frozen.

Done on the event loop, its ~1 s of imports (store, tools, tokenizer, provider; ~10 s on a busy
machine) would freeze the prompt the user types in. The app starts it right after the first
frame; whatever needs the stack (the services factory) waits for it, and what does not (the
trust question) goes first.
"""

from __future__ import annotations

import asyncio
import gc
import logging

from agent_tui import gc_pause

log = logging.getLogger(__name__)


def warm_imports() -> None:
    """Import what building services and sessions needs (run in a thread)."""
    import importlib

    from agent_tui.llm.startup import preload

    preload()  # the window and the HTTP client, each in its own thread

    for name in (
        "agent_tui.store",
        "agent_tui.factory",
        "agent_tui.agent.session",
        "agent_tui.tools.registry",
        "agent_tui.llm.provider",
        "agent_tui.context.compaction",
        "rich.markdown",
    ):
        try:
            importlib.import_module(name)
        except Exception:
            log.debug("warming %s failed", name, exc_info=True)
    # litellm is not warmed here: OpenAI-compatible and Anthropic models never need it, and a
    # model that does starts its import in the background when its Provider is built.


def _warm_and_freeze() -> None:
    try:
        warm_imports()
    finally:
        # litellm and friends leave ~1M long-lived objects; without this every full GC pass walks
        # them all, a pause of 0.1-0.3 s that lands on some keystroke.
        gc.freeze()
        gc_pause.resume()  # the entry held the collector off for the imports up to here


class Warmup:
    """The warm-up, started once, awaited by any number of callers."""

    def __init__(self) -> None:
        self._running: asyncio.Future[None] | None = None

    def start(self) -> None:
        if self._running is None:
            self._running = asyncio.ensure_future(asyncio.to_thread(_warm_and_freeze))

    async def done(self) -> None:
        self.start()
        assert self._running is not None
        await asyncio.shield(self._running)
