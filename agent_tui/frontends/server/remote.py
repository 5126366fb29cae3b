"""A served session seen from a front end: the surface of the in-process `SessionDriver`
(core/driver.py) — `submit(op)`, `drive(op)`, an `EventLog` of typed events — plus the reads an
attached TUI needs (the /context report, the stored outputs), all over `agent-tui serve`.

The log is fed by one follower of the server's event stream. Each event carries the server's id;
the follower keeps the last one and drops anything at or below it, and on a dropped connection the
client resumes from it (Last-Event-ID): the local log gets every event once, in the server's order,
whatever the network did. Only httpx is imported (client.py): no server library.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.base.messages import ResultRef
from agent_tui.core import ops
from agent_tui.core.context_report import ContextReport
from agent_tui.core.event_log import EventLog
from agent_tui.core.protocol_events import ends
from agent_tui.core.wire_decode import WireError, decode, event_from_json
from agent_tui.frontends.server.client import AgentClient
from agent_tui.store.models import BlobInfo, RecallHit, ResolvedRef

if TYPE_CHECKING:
    from agent_tui.agent.events import AgentEvent
    from agent_tui.core.context_report import ContextReport
    from agent_tui.store.models import BlobInfo, RecallHit, ResolvedRef

log = logging.getLogger(__name__)

RETRY_FIRST = 0.2
RETRY_MOST = 5.0
"""Seconds between tries to get the event stream back, doubling from the first to the most."""


@dataclass(frozen=True)
class RemoteContext:
    """What /context shows of a served session, read in one request."""

    report: ContextReport
    target_ratio: float
    savings: dict[str, int]
    recoverable: str | None


class RemoteDriver:
    def __init__(self, client: AgentClient, session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self.log = EventLog()
        self.last_server_id = 0
        """The id of the newest server event taken into the log."""
        self.results = RemoteResults(client)
        """The stored outputs, for the blob browser (the result store's reading methods)."""
        self._follower: asyncio.Task[None] | None = None
        self.owns_client = False
        """Closing the driver closes the client too (it was opened for it)."""
        self.on_connection: Callable[[str], None] = lambda text: log.info("%s", text)
        """Told when the event stream is lost, back, or ended (the attached TUI shows it)."""

    @classmethod
    async def attach(cls, client: AgentClient, session_id: str | None = None) -> RemoteDriver:
        """Follow `session_id` (opened on the server if it was only stored), or a new session."""
        if session_id is None:
            session_id = await client.create_session()
        else:
            session_id = await client.resume_session(session_id)
        driver = cls(client, session_id)
        driver.start()
        return driver

    def start(self) -> None:
        if self._follower is None:
            self._follower = asyncio.create_task(self._follow(), name=f"follow-{self.session_id}")

    async def _follow(self) -> None:
        """Follow the stream for good: a dropped connection is retried (backing off to a few
        seconds) from the last id taken, and said once when lost and once when back."""
        import httpx

        from agent_tui.frontends.server.client import ServerError  # lazy: heavy

        wait, lost = RETRY_FIRST, False
        while True:
            try:
                async for event in self.client.events(self.session_id, self.last_server_id, reconnect=False):
                    if lost:
                        lost, wait = False, RETRY_FIRST
                        self.on_connection("Reconnected to the server; no event was missed.")
                    self.take(event.id, event.data)
                self.on_connection("The server ended the event stream (it is stopping?).")
                return
            except ServerError as exc:
                self.on_connection(f"The server refused the event stream: {exc.message}")
                return
            except httpx.TransportError as exc:
                if not lost:
                    lost = True
                    self.on_connection(f"Lost the connection to the server ({type(exc).__name__}); retrying…")
            await asyncio.sleep(wait)
            wait = min(wait * 2, RETRY_MOST)

    def take(self, server_id: int, data: dict[str, Any]) -> bool:
        """Add one server event to the log unless it was taken already; False when it was."""
        if server_id <= self.last_server_id:
            return False
        self.last_server_id = server_id
        try:
            self.log.append(event_from_json(data))
        except WireError:  # a newer server's event: logged, the stream goes on
            log.warning("an event this client cannot read: %.200r", data)
        return True

    async def submit(self, op: ops.Op) -> str | None:
        """Submit `op`; why the server would not take it (busy, …), or None when it did."""
        refused = (await self.client.operate(self.session_id, op)).get("refused")
        return str(refused) if refused is not None else None

    async def drive(self, op: ops.Op) -> AsyncIterator[AgentEvent]:
        """Submit `op` and yield the events from then on until its work is finished."""
        start = self.log.last_id
        await self.submit(op)
        async for _, event in self.log.follow(start):
            yield event
            if ends(op, event):
                return

    async def context(self, *, savings: bool = True) -> RemoteContext:
        """/context's figures (`savings` False: without what compacting would free, quicker)."""

        body = await self.client.context(self.session_id, savings=savings)
        return RemoteContext(
            decode(ContextReport, body["report"]),
            float(body["target_ratio"]),
            {str(k): int(v) for k, v in (body["savings"] or {}).items()},
            body.get("recoverable"),
        )

    async def close(self) -> None:
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._follower
            self._follower = None
        if self.owns_client:
            await self.client.close()


class RemoteResults:
    """The reading half of the result store (store/results.py), served: what the blob browser
    and its viewer call, with the same arguments and the same return types."""

    def __init__(self, client: AgentClient) -> None:
        self.client = client
        self.search_timeout = 2.0
        """Seconds the server's grep may take (as its answers report)."""

    async def list_blobs(
        self, session_id: str | None = None, project: str | None = None, limit: int = 200
    ) -> list[BlobInfo]:

        body = await self.client.blobs(session_id, limit=min(limit, 500))
        return [decode(BlobInfo, item) for item in body["blobs"]]

    async def recall(
        self, query: str, project: str | None = None, session_id: str | None = None, limit: int = 10
    ) -> list[RecallHit]:

        body = await self.client.blobs(session_id, query=query, limit=min(limit, 500))
        return [decode(RecallHit, item) for item in body["hits"]]

    async def resolve(self, ref_or_uri: str | ResultRef, session_id: str | None = None) -> ResolvedRef:

        ref = ref_or_uri.id if isinstance(ref_or_uri, ResultRef) else ref_or_uri
        return decode(ResolvedRef, (await self.client.blob(ref))["resolved"])

    async def read_lines(
        self,
        ref_id: str | ResultRef,
        start: int,
        count: int,
        session_id: str | None = None,
        max_line_length: int | None = None,
    ) -> list[str]:
        ref = ref_id.id if isinstance(ref_id, ResultRef) else ref_id
        body = await self.client.blob(ref, start, count, max_line_length)
        return [str(line) for line in body.get("lines", [])]

    async def grep(
        self,
        ref_id: str,
        pattern: str,
        context: int = 0,
        session_id: str | None = None,
        max_matches: int = 200,
        max_bytes: int = 51200,
        max_line_length: int = 2000,
        touch: bool = False,
    ) -> str:
        body = await self.client.grep(
            ref_id, pattern, max_matches=max_matches, max_bytes=max_bytes, max_line_length=max_line_length
        )
        self.search_timeout = float(body.get("search_timeout", self.search_timeout))
        return str(body["text"])


class RemoteStore:
    """What the blob browser asks of a store, when the store is the server's."""

    def __init__(self, results: RemoteResults) -> None:
        self.results = results
