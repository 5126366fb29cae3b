"""Request bodies and refusals, shared by the server's endpoints (http.py, reads.py): a body
is bounded and must be a JSON object; a `Refused` becomes a 4xx with a one-line `error`."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

MAX_BODY = 256 * 1024
"""Bytes a request body may hold (a prompt with pasted logs fits; a flood does not)."""


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


def optional(body: dict[str, Any], key: str, kind: type) -> Any:
    value = body.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool) and kind is int):
        raise Refused(400, f"`{key}` must be a {kind.__name__}")
    return value
