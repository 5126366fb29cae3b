"""The server's HTTP surface (Starlette): every request carries the bearer token or is refused;
bodies are bounded; a malformed request gets a 4xx with a one-line `error` and the server goes on.

    GET  /v1/schema/operations | /v1/schema/events     the protocol's JSON Schema
    GET  /v1/sessions                                   open and stored sessions of the folder
    POST /v1/sessions            {"resume"?: id, "title"?: str}
    POST /v1/sessions/{id}/fork  {"before"?: n, "title"?: str}
    POST /v1/sessions/{id}/operations   an operation (core/ops.py), e.g. {"type": "send", …};
                                        `refused`: why it was not taken (busy, …), else null
    GET  /v1/sessions/{id}/events?after=N   Server-Sent Events; `Last-Event-ID` works too

and what an attached front end reads beside the events (frontends/server/reads.py): the /context report,
the approvals waiting (and a shortcut to answer one), the stored outputs and their lines.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agent_tui.config import ConfigError
from agent_tui.core.ops import BadOperation, op_from_json
from agent_tui.core.protocol_events import OperationRefused
from agent_tui.core.protocol_schema import events_schema, operations_schema
from agent_tui.frontends.server import reads
from agent_tui.frontends.server.bodies import Refused, optional, read_body, read_operation
from agent_tui.frontends.server.hub import Hub, NotForked, UnknownSession
from agent_tui.frontends.server.token import matches
from agent_tui.store import StoreError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class RequireToken:
    """ASGI middleware: no bearer token, no answer (401) — for every path."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"authorization", b"")
            if not matches(header, self.token):
                response = _error(401, "missing or wrong bearer token (see the token file `serve` printed)")
                response.headers["WWW-Authenticate"] = "Bearer"
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


Endpoint = Callable[[Request, Hub], Awaitable[Response]]


def _handled(endpoint: Endpoint, hub: Hub) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        try:
            return await endpoint(request, hub)
        except Refused as exc:
            return _error(exc.status, str(exc))
        except UnknownSession as exc:
            return _error(404, f"no open session {exc.args[0]!r} (POST /v1/sessions with resume)")
        except (ConfigError, StoreError) as exc:
            return _error(400, str(exc))
        except Exception as exc:  # the server keeps serving; the log has the traceback
            log.exception("%s %s failed", request.method, request.url.path)
            return _error(500, f"{type(exc).__name__}: {exc}")

    return run


def _session_json(hub: Hub, session_id: str) -> dict[str, Any]:
    driver = hub.get(session_id)
    session = driver.require()
    return {
        "session_id": session.session_id,
        "model": session.model,
        "title": session.shown_title,
        "busy": driver.busy,
    }


async def list_sessions(request: Request, hub: Hub) -> Response:
    stored = await hub.services.store.sessions.list(hub.services.workspace, limit=200)
    return JSONResponse(
        {
            "open": [_session_json(hub, sid) for sid in hub.drivers],
            "stored": [
                {"session_id": s.id, "title": s.title, "model": s.model, "updated": s.updated} for s in stored
            ],
        }
    )


async def open_session(request: Request, hub: Hub) -> Response:
    body = await read_body(request)
    resume = optional(body, "resume", str)
    driver = await hub.resume(resume) if resume else await hub.create(optional(body, "title", str))
    return JSONResponse(_session_json(hub, driver.require().session_id), status_code=201)


async def fork(request: Request, hub: Hub) -> Response:
    body = await read_body(request)
    before, title = optional(body, "before", int), optional(body, "title", str)
    try:
        driver = await hub.fork(request.path_params["session_id"], before, title)
    except NotForked as exc:
        raise Refused(400, str(exc)) from None
    return JSONResponse(_session_json(hub, driver.require().session_id), status_code=201)


async def submit(request: Request, hub: Hub) -> Response:
    driver = hub.get(request.path_params["session_id"])
    try:
        op = op_from_json(await read_operation(request))
    except BadOperation as exc:
        raise Refused(400, str(exc)) from None
    before = driver.log.last_id
    await driver.submit(op)
    # A refusal is published within submit: the first of this type since `before` is this one's.
    refused = next(
        (
            e.message
            for _, e in driver.log.after(before)
            if isinstance(e, OperationRefused) and e.operation == op.type
        ),
        None,
    )
    return JSONResponse({"accepted": op.type, "after": before, "refused": refused}, status_code=202)


def _sse(event_id: int, kind: str, data: dict[str, Any]) -> bytes:
    return f"id: {event_id}\nevent: {kind}\ndata: {json.dumps(data, default=str)}\n\n".encode()


async def events(request: Request, hub: Hub) -> Response:
    driver = hub.get(request.path_params["session_id"])
    raw = request.query_params.get("after") or request.headers.get("last-event-id") or "0"
    if not raw.isdigit():
        raise Refused(400, "`after` (or Last-Event-ID) must be an event id")

    async def stream() -> AsyncIterator[bytes]:
        yield b": connected\n\n"  # headers and a first byte at once: the client knows it is in
        async for event_id, event in driver.log.follow(int(raw)):
            yield _sse(event_id, event.type, event.to_json())

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def schema(request: Request, hub: Hub) -> Response:
    which = request.path_params["which"]
    if which not in ("operations", "events"):
        raise Refused(404, "schemas: operations, events")
    return JSONResponse(operations_schema() if which == "operations" else events_schema())


def build_app(hub: Hub, token: str, lifespan: Any = None) -> ASGIApp:

    def route(path: str, endpoint: Endpoint, method: str) -> Route:
        return Route(path, _handled(endpoint, hub), methods=[method])

    app = Starlette(
        routes=[
            route("/v1/schema/{which}", schema, "GET"),
            route("/v1/sessions", list_sessions, "GET"),
            route("/v1/sessions", open_session, "POST"),
            route("/v1/sessions/{session_id}/fork", fork, "POST"),
            route("/v1/sessions/{session_id}/operations", submit, "POST"),
            route("/v1/sessions/{session_id}/events", events, "GET"),
            route("/v1/sessions/{session_id}/context", reads.context, "GET"),
            route("/v1/sessions/{session_id}/approvals", reads.approvals, "GET"),
            route("/v1/sessions/{session_id}/approvals/{request_id}", reads.answer, "POST"),
            route("/v1/blobs", reads.blobs, "GET"),
            route("/v1/blobs/{ref:path}/grep", reads.grep, "GET"),  # before: a ref may hold slashes
            route("/v1/blobs/{ref:path}", reads.blob, "GET"),
        ],
        lifespan=lifespan,
    )
    return RequireToken(app, token)
