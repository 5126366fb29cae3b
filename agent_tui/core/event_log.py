"""A session's events numbered in order, kept for replay: a client that reconnects with the last
id it saw is given every event after it (the server's stream), and any number of followers read
the same sequence (two clients on one session, an in-process front end beside a remote one).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

from agent_tui.agent.events import AgentEvent

KEEP = 50_000
"""Events kept for replay; a follower further behind than this starts at the oldest kept."""


class EventLog:
    def __init__(self, keep: int = KEEP) -> None:
        self._items: deque[tuple[int, AgentEvent]] = deque(maxlen=keep)
        self._last = 0
        self._grew = asyncio.Event()

    @property
    def last_id(self) -> int:
        return self._last

    def append(self, event: AgentEvent) -> int:
        self._last += 1
        self._items.append((self._last, event))
        grew, self._grew = self._grew, asyncio.Event()
        grew.set()  # wakes every follower waiting for this id
        return self._last

    def after(self, last_seen: int) -> list[tuple[int, AgentEvent]]:
        """The kept events with an id above `last_seen`, oldest first."""
        if not self._items or last_seen >= self._last:
            return []
        first = self._items[0][0]
        start = max(0, last_seen + 1 - first)
        return [self._items[i] for i in range(start, len(self._items))]

    async def follow(self, last_seen: int = 0) -> AsyncIterator[tuple[int, AgentEvent]]:
        """Every event after `last_seen`, then each new one as it comes (until cancelled)."""
        while True:
            waiting = self._grew  # taken before reading, so an append in between is not missed
            batch = self.after(last_seen)
            for item in batch:
                yield item
                last_seen = item[0]
            if not batch:
                await waiting.wait()
