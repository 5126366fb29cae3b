"""What an attached front end reads besides the event stream, and the approvals shortcut: the
/context report, the stored outputs the blob browser lists and reads, the approvals waiting.

    GET  /v1/sessions/{id}/context?savings=0        the /context report, savings (unless 0), what is recoverable
    GET  /v1/sessions/{id}/approvals                the approvals waiting for a client
    POST /v1/sessions/{id}/approvals/{request_id}   {"action": "allow_once", "prefix"?: str}
    GET  /v1/blobs?session_id=|project=&q=&limit=   stored outputs (newest first), or recall hits for q
    GET  /v1/blobs/{ref}?start=&count=              a ref resolved, with a window of its lines
    GET  /v1/blobs/{ref}/grep?pattern=              its matching lines, `N:line`

Every read is bounded (lines, matches, bytes, rows) and stays inside the served folder: a blob
or session of another project is answered as unknown. Nothing here writes, but for the approval
answer, which is the `approve` operation by another door (the same event comes of it).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent_tui.agent.events import _jsonable
from agent_tui.core import ops
from agent_tui.core.context_report import build_report, compaction_savings, recoverable
from agent_tui.frontends.server.bodies import Refused, read_body
from agent_tui.frontends.server.hub import Hub
from agent_tui.store.errors import BadPattern

MAX_ROWS = 500
MAX_LINES = 2000
MAX_LINE_LENGTH = 4000
MAX_MATCHES = 2000
MAX_GREP_BYTES = 256 * 1024


def _int(request: Request, name: str, default: int, most: int, least: int = 0) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not least <= int(raw) <= most:
        raise Refused(400, f"`{name}` must be a whole number from {least} to {most}")
    return int(raw)


async def context(request: Request, hub: Hub) -> Response:

    driver = hub.get(request.path_params["session_id"])
    session = driver.require()
    # Mid-turn, measuring would change the request being sent: the last measurement then (as the TUI).
    budget = session.last_budget if driver.busy and session.last_budget else session.measure()
    found = await recoverable(session)
    with_savings = request.query_params.get("savings", "1") != "0"
    return JSONResponse(
        {
            "report": _jsonable(build_report(session, budget)),
            "target_ratio": session.config.compaction.target_ratio,
            "savings": await compaction_savings(session, budget) if with_savings else None,
            "recoverable": found.describe() if found is not None else None,
        }
    )


async def approvals(request: Request, hub: Hub) -> Response:
    driver = hub.get(request.path_params["session_id"])
    return JSONResponse({"pending": [asked.to_json() for asked in driver.asked.values()]})


async def answer(request: Request, hub: Hub) -> Response:
    driver = hub.get(request.path_params["session_id"])
    request_id = request.path_params["request_id"]
    body = await read_body(request)
    try:
        op = ops.op_from_json({**body, "type": "approve", "request_id": request_id})
    except ops.BadOperation as exc:
        raise Refused(400, str(exc)) from None
    if request_id not in driver.asked:
        raise Refused(409, f"no approval {request_id!r} is waiting (answered, timed out or interrupted)")
    await driver.submit(op)
    return JSONResponse({"request_id": request_id, "action": body.get("action")})


def _project(hub: Hub) -> str:
    return str(hub.services.workspace)


async def _check_session(hub: Hub, session_id: str) -> None:
    info = await hub.services.store.sessions.get(session_id)
    if info.project != _project(hub):
        raise Refused(404, f"no session {session_id!r} in the served folder")


async def blobs(request: Request, hub: Hub) -> Response:
    """The served folder's outputs (or one of its sessions'), or recall's hits among them."""
    results = hub.services.store.results
    session_id = request.query_params.get("session_id") or None
    project = request.query_params.get("project") or None
    if project is not None and project != _project(hub):
        raise Refused(404, "only the served folder's outputs are listed")
    if session_id is not None:
        await _check_session(hub, session_id)
    else:
        project = _project(hub)
    limit = _int(request, "limit", 200, MAX_ROWS, 1)
    query = request.query_params.get("q", "")
    if query.strip():
        hits = await results.recall(query[:1000], project=project, session_id=session_id, limit=limit)
        return JSONResponse({"hits": [_jsonable(h) for h in hits]})
    infos = await results.list_blobs(session_id=session_id, project=project, limit=limit)
    return JSONResponse({"blobs": [_jsonable(i) for i in infos]})


async def _resolved(request: Request, hub: Hub) -> Any:
    resolved = await hub.services.store.results.resolve(request.path_params["ref"])
    if resolved.project != _project(hub):
        raise Refused(404, f"no stored output {request.path_params['ref']!r} in the served folder")
    return resolved


async def blob(request: Request, hub: Hub) -> Response:
    resolved = await _resolved(request, hub)
    count = _int(request, "count", 0, MAX_LINES)
    body: dict[str, Any] = {"resolved": _jsonable(resolved)}
    if count:
        body["lines"] = await hub.services.store.results.read_lines(
            resolved.ref.id,
            _int(request, "start", 1, 1 << 40, 1),
            count,
            max_line_length=_int(request, "max_line_length", MAX_LINE_LENGTH, MAX_LINE_LENGTH, 1),
        )
    return JSONResponse(body)


async def grep(request: Request, hub: Hub) -> Response:
    resolved = await _resolved(request, hub)
    pattern = request.query_params.get("pattern", "")
    if not pattern or len(pattern) > 1000:
        raise Refused(400, "`pattern` must be a regular expression of 1 to 1000 characters")
    results = hub.services.store.results
    try:
        text = await results.grep(
            resolved.ref.id,
            pattern,
            max_matches=_int(request, "max_matches", 200, MAX_MATCHES, 1),
            max_line_length=_int(request, "max_line_length", 2000, MAX_LINE_LENGTH, 1),
            max_bytes=_int(request, "max_bytes", 51200, MAX_GREP_BYTES, 1),
        )
    except BadPattern as exc:
        raise Refused(400, str(exc)) from None
    return JSONResponse({"text": text, "search_timeout": results.search_timeout})
