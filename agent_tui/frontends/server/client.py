"""A typed client of `agent-tui serve`, for scripts, CI and tests: open a session, submit
operations (core/ops.py, the same dataclasses the server parses), follow the numbered event
stream — reconnecting with the last id seen, so a dropped connection loses and doubles nothing.

    async with AgentClient(url, token) as client:
        session = await client.create_session()
        await client.submit(session, ops.Send("fix the failing test"))
        async for event in client.events(session):
            if event.type == "approval_requested":
                await client.submit(session, ops.Approve(event.data["request_id"], "allow_once"))
            if event.type == "work_finished":
                break

Only httpx and the protocol's dataclasses are imported: no server library.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from agent_tui.core.ops import Op


@dataclass(frozen=True)
class ServerEvent:
    """One event of a session's stream: its id (for resuming), type and JSON body."""

    id: int
    type: str
    data: dict[str, Any]


class ServerError(Exception):
    """The server refused a request; `status` is the HTTP status, the message its `error`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


class AgentClient:
    def __init__(self, url: str, token: str, *, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.AsyncClient(
            base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        )

    @classmethod
    def from_token_file(cls, url: str, path: Path) -> AgentClient:
        return cls(url, path.read_text().strip())

    async def __aenter__(self) -> AgentClient:
        return self

    async def __aexit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _call(
        self, method: str, path: str, body: dict[str, Any] | None = None, params: dict[str, Any] | None = None
    ) -> Any:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        response = await self._http.request(method, path, json=body, params=query)
        if response.status_code >= 400:
            try:
                message = response.json().get("error", response.text)
            except ValueError:
                message = response.text
            raise ServerError(response.status_code, message)
        return response.json()

    async def create_session(self, title: str | None = None) -> str:
        """A new session; its id."""
        return str((await self._call("POST", "/v1/sessions", {"title": title}))["session_id"])

    async def resume_session(self, session_id: str) -> str:
        return str((await self._call("POST", "/v1/sessions", {"resume": session_id}))["session_id"])

    async def fork_session(self, session_id: str, before: int | None = None, title: str | None = None) -> str:
        body = {"before": before, "title": title}
        return str((await self._call("POST", f"/v1/sessions/{session_id}/fork", body))["session_id"])

    async def sessions(self) -> dict[str, list[dict[str, Any]]]:
        """`open` (held by the server now) and `stored` (this folder's, newest first)."""
        result: dict[str, list[dict[str, Any]]] = await self._call("GET", "/v1/sessions")
        return result

    async def submit(self, session_id: str, op: Op) -> int:
        """Submit an operation; returns the id of the last event before it (follow from there)."""
        return int((await self.operate(session_id, op))["after"])

    async def operate(self, session_id: str, op: Op) -> dict[str, Any]:
        """Submit an operation: `after` (the last event id before it) and `refused` (why it was
        not taken — busy, … — or None)."""
        result: dict[str, Any] = await self._call(
            "POST", f"/v1/sessions/{session_id}/operations", op.to_json()
        )
        return result

    async def approvals(self, session_id: str) -> list[dict[str, Any]]:
        """The approvals waiting for an answer (each an `approval_requested` event's body)."""
        return list((await self._call("GET", f"/v1/sessions/{session_id}/approvals"))["pending"])

    async def answer(self, session_id: str, request_id: str, action: str, prefix: str | None = None) -> None:
        """Answer a waiting approval (ServerError 409: nothing of that id waits any more)."""
        body = {"action": action, **({"prefix": prefix} if prefix is not None else {})}
        await self._call("POST", f"/v1/sessions/{session_id}/approvals/{request_id}", body)

    async def context(self, session_id: str, *, savings: bool = True) -> dict[str, Any]:
        """/context's figures: `report`, `target_ratio`, `savings` (None unless asked: they
        run the compaction strategies on a copy), `recoverable`."""
        params = None if savings else {"savings": 0}
        result: dict[str, Any] = await self._call("GET", f"/v1/sessions/{session_id}/context", params=params)
        return result

    async def blobs(
        self, session_id: str | None = None, query: str = "", limit: int = 200
    ) -> dict[str, list[dict[str, Any]]]:
        """The served folder's stored outputs (`blobs`, newest first; one session's with
        `session_id`), or recall's `hits` for `query`."""
        params = {"session_id": session_id, "q": query or None, "limit": limit}
        result: dict[str, list[dict[str, Any]]] = await self._call("GET", "/v1/blobs", params=params)
        return result

    async def blob(
        self, ref: str, start: int = 1, count: int = 0, max_line_length: int | None = None
    ) -> dict[str, Any]:
        """A ref resolved (`resolved`), with `count` of its lines from `start` (`lines`)."""
        params = {"start": start, "count": count, "max_line_length": max_line_length}
        result: dict[str, Any] = await self._call("GET", f"/v1/blobs/{ref}", params=params)
        return result

    async def grep(self, ref: str, pattern: str, **limits: int) -> dict[str, Any]:
        """A stored output's lines matching `pattern` (`text`, as read_result's grep prints)."""
        result: dict[str, Any] = await self._call(
            "GET", f"/v1/blobs/{ref}/grep", params={"pattern": pattern, **limits}
        )
        return result

    async def schema(self, which: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._call("GET", f"/v1/schema/{which}")
        return result

    async def events(
        self, session_id: str, after: int = 0, *, reconnect: bool = True
    ) -> AsyncIterator[ServerEvent]:
        """Every event after `after`, live; on a dropped connection, resumes from the last id."""
        last = after
        while True:
            try:
                async for event in self._stream(session_id, last):
                    last = event.id
                    yield event
                return
            except (httpx.TransportError, httpx.RemoteProtocolError):
                if not reconnect:
                    raise
                await asyncio.sleep(0.2)  # the server may be restarting its listener

    async def _stream(self, session_id: str, after: int) -> AsyncIterator[ServerEvent]:
        path = f"/v1/sessions/{session_id}/events"
        headers = {"Last-Event-ID": str(after), "Accept": "text/event-stream"}
        async with self._http.stream("GET", path, headers=headers, timeout=None) as response:
            if response.status_code >= 400:
                await response.aread()
                raise ServerError(response.status_code, response.json().get("error", response.text))
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line == "":
                    if "data" in fields:
                        yield ServerEvent(
                            int(fields.get("id", "0")), fields.get("event", ""), json.loads(fields["data"])
                        )
                    fields = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
