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

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = await self._http.request(method, path, json=body)
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
        return int((await self._call("POST", f"/v1/sessions/{session_id}/operations", op.to_json()))["after"])

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
