"""Request bodies and refusals, shared by the server's endpoints (http.py, reads.py): a body
is bounded and must be a JSON object; a `Refused` becomes a 4xx with a one-line `error`."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from agent_tui.base.images import MAX_IMAGE_BYTES

MAX_BODY = 256 * 1024
"""Bytes a request body may hold (a prompt with pasted logs fits; a flood does not)."""
PICTURES_PER_OPERATION = 4
MAX_OPERATION_BODY = MAX_BODY + PICTURES_PER_OPERATION * (MAX_IMAGE_BYTES * 4 // 3 + 4)
"""An operation's body: a `send` carries its pictures inline (base64), a few at the size cap."""


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def read_body(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise Refused(413, f"request body over {limit} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise Refused(413, f"request body over {limit} bytes")
    if not data.strip():
        return {}
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(400, f"request body is not JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise Refused(400, "request body must be a JSON object")
    return parsed


async def read_operation(request: Request) -> dict[str, Any]:
    """An operation's body: bounded as any body besides the pictures a `send` carries inline,
    which may add a few at the size cap (a screenshot is more than a prompt's text)."""
    body = await read_body(request, MAX_OPERATION_BODY)
    pictures = body.get("images")
    if isinstance(pictures, list) and len(pictures) > PICTURES_PER_OPERATION:
        raise Refused(413, f"at most {PICTURES_PER_OPERATION} pictures in one operation")
    rest = {key: value for key, value in body.items() if key != "images"}
    if len(json.dumps(rest)) > MAX_BODY:
        raise Refused(413, f"request body over {MAX_BODY} bytes besides its pictures")
    return body


def optional(body: dict[str, Any], key: str, kind: type) -> Any:
    value = body.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool) and kind is int):
        raise Refused(400, f"`{key}` must be a {kind.__name__}")
    return value
