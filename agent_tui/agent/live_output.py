"""A running command's output on its way to the screen while the call is still running.

Claude Code shows a running command's latest lines under its call and keeps them moving; the
blob store gets the whole output either way (tools/bash.py streams it there). This is the other
branch of the same stream: bash hands each piece to `LiveOutput.feed`, which only appends to a
bounded buffer (the tool is never slowed by whoever watches), and the loop, while it waits for
the call, takes what gathered since last time as one `ToolOutputDelta` (agent/subagent_calls.py
and agent/user_command.py). Many pieces between two looks become one event, and a buffer past
`KEEP_BYTES` keeps its tail: a viewer shows the newest lines, and a 50 MB build log must not
queue 50 MB of events.
"""

from __future__ import annotations

import asyncio
import codecs
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from agent_tui.agent import events as ev

KEEP_BYTES = 8192
"""What one event carries at most: the newest bytes since the last event."""

T = TypeVar("T")


class LiveOutput:
    """Per running call: the output that arrived since the loop last looked."""

    def __init__(self) -> None:
        self._pending: dict[str, bytearray] = {}
        self._skipped: dict[str, int] = {}
        self._decoders: dict[str, codecs.IncrementalDecoder] = {}
        self.ready = asyncio.Event()
        """Set when something arrived; the waiting loop clears it as it takes."""

    def feeder(self, call_id: str) -> Callable[[bytes], None]:
        """What the tool calls with each piece of `call_id`'s output."""

        def feed(chunk: bytes) -> None:
            pending = self._pending.setdefault(call_id, bytearray())
            pending += chunk
            if len(pending) > KEEP_BYTES:
                cut = len(pending) - KEEP_BYTES
                self._skipped[call_id] = self._skipped.get(call_id, 0) + cut
                del pending[:cut]
                self._decoders.pop(call_id, None)  # a cut may land mid-character: start afresh
            self.ready.set()

        return feed

    def take(self) -> list[ev.ToolOutputDelta]:
        """One event per call with output since last time, and the buffers emptied."""
        self.ready.clear()
        events = []
        for call_id, pending in self._pending.items():
            if not pending:
                continue
            decoder = self._decoders.setdefault(call_id, codecs.getincrementaldecoder("utf-8")("replace"))
            text = decoder.decode(bytes(pending))
            pending.clear()
            skipped = self._skipped.pop(call_id, 0)
            if text or skipped:
                events.append(ev.ToolOutputDelta(call_id, text, skipped))
        return events

    def forget(self, call_id: str) -> None:
        """The call is over: its final view replaces whatever was live."""
        self._pending.pop(call_id, None)
        self._skipped.pop(call_id, None)
        self._decoders.pop(call_id, None)


async def while_running(
    live: LiveOutput, work: Awaitable[T], call_id: str
) -> AsyncIterator[ev.ToolOutputDelta | tuple[T]]:
    """Run `work`, passing on its live output as it comes; `(result,)` comes last. Cancelling
    cancels the work."""
    task = asyncio.ensure_future(work)
    try:
        while not task.done():
            waiting = asyncio.ensure_future(live.ready.wait())
            try:
                await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting.cancel()
            for event in live.take():
                yield event
        live.forget(call_id)
        yield (task.result(),)
    except BaseException:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        raise
