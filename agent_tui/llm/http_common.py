"""What both direct wire formats share: the httpx client, the time limits, status errors, SSE lines.

Time limits are enforced here rather than by httpx's per-read timeout, because they differ by
phase: the response must *start* (status line and headers) within `first_byte`, after which a
stream may go quiet for at most `idle` between chunks, and the whole call ends by `total`. Each
limit is an `asyncio.timeout` around one await inside this frame, never around a `yield` (a
timeout spanning a yield would cancel whatever the consumer was doing at the time).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from agent_tui.llm.errors import LLMError, ProviderTimeout
from agent_tui.llm.import_lock import HEAVY_IMPORTS

if TYPE_CHECKING:
    import httpx

T = TypeVar("T")


@dataclass(frozen=True)
class TimeLimits:
    """Seconds; `[provider]` in config."""

    connect: float = 10.0
    first_byte: float = 45.0
    """Request sent → status and headers received (a slow local prefill can need more)."""
    idle: float = 120.0
    """Longest silence between two stream chunks."""
    total: float = 600.0
    """The whole call, first byte to last."""

    def unstreamed(self) -> TimeLimits:
        """For a reply that is not streamed: its first byte comes only once the whole reply is
        generated, so only the connect and total limits can apply."""
        return replace(self, first_byte=self.total, idle=self.total)


class ProviderHTTPError(Exception):
    """An error status from the provider; classified by llm/errors.py like litellm's errors."""

    def __init__(self, status: int, message: str, response: Any = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.message = message
        self.response = response
        """The httpx response: its headers carry Retry-After."""


class BadRequestError(ProviderHTTPError):
    """4xx that is not about keys, limits or names (named as litellm names it)."""


class ContextWindowExceededError(BadRequestError):
    """The prompt does not fit: recognised from the provider's own wording or error code."""


_CONTEXT = re.compile(
    r"context[ _-]?length|maximum context|context (size|window)|exceed_context_size|"
    r"prompt is too long|input is too long|too many tokens|reduce the length",
    re.IGNORECASE,
)

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary()
)


_ssl: list[Any] = []


def _ssl_context() -> Any:
    """httpx and the CA bundle, loaded once (~0.1-0.2 s): by `preload` ahead of the first call."""
    if not _ssl:
        warm()
    return _ssl[0]


def warm() -> None:
    """Import httpx and what the first send needs, and load the CA bundle, in this thread; one
    thread at a time, and not beside litellm's import (llm/import_lock.py)."""
    if _ssl:
        return
    with HEAVY_IMPORTS:
        if _ssl:
            return
        # What the first send imports on the caller's loop otherwise: httpcore's connection code
        # and anyio's asyncio backend (anyio loads it lazily, ~0.1 s of the first request's path).
        import importlib

        import httpx

        for name in ("httpcore._async.connection_pool", "httpcore._async.http11", "anyio._backends._asyncio"):
            try:
                importlib.import_module(name)
            except ImportError:  # an httpcore or anyio that moved things: the send imports them
                pass
        _ssl.append(httpx.create_ssl_context())  # last: a set `_ssl` says all of the above is done


def preload() -> None:
    """Import httpx and load the CA bundle in a daemon thread, while the app starts."""
    if not _ssl:
        threading.Thread(target=warm, name="httpx-preload", daemon=True).start()


def _new_client() -> httpx.AsyncClient:
    warm()  # in this worker thread, behind any import of httpx another thread is doing
    import httpx

    return httpx.AsyncClient(
        verify=_ssl_context(),
        timeout=httpx.Timeout(None),
        limits=httpx.Limits(max_keepalive_connections=8, keepalive_expiry=60),
        trust_env=True,
    )


async def client() -> httpx.AsyncClient:
    """One pooled client per event loop (keep-alive and TLS sessions survive between calls).
    The first is made in a worker thread: importing httpx and loading the CA bundle takes
    ~0.1 s that the UI loop should not wait for."""
    loop = asyncio.get_running_loop()
    found = _clients.get(loop)
    if found is None or found.is_closed:
        found = await asyncio.to_thread(_new_client)
        _clients[loop] = found
    return found


class Clock:
    """One call's deadlines."""

    def __init__(self, limits: TimeLimits, where: str) -> None:
        self.limits = limits
        self.where = where
        self.deadline = asyncio.get_running_loop().time() + limits.total

    def _left(self, limit: float, setting: str, what: str) -> tuple[float, str, str]:
        left = self.deadline - asyncio.get_running_loop().time()
        if left < limit:
            return max(left, 0.0), "total_timeout", f"did not finish within {self.limits.total:g} s"
        return limit, setting, what

    async def first(self, awaitable: Awaitable[T]) -> T:
        """`awaitable` (a request whose response has not started), within first_byte."""
        seconds, setting, what = self._left(
            self.limits.first_byte,
            "first_byte_timeout",
            f"sent no response within {self.limits.first_byte:g} s",
        )
        try:
            async with asyncio.timeout(seconds):
                return await awaitable
        except TimeoutError:
            raise ProviderTimeout(self.where, setting, what) from None

    async def send(self, request: httpx.Request) -> httpx.Response:
        """The response once its status and headers arrived."""
        import httpx

        pool = await client()
        try:
            return await self.first(pool.send(request, stream=True))
        except httpx.ConnectTimeout:
            raise ProviderTimeout(
                self.where, "connect_timeout", f"could not be connected to within {self.limits.connect:g} s"
            ) from None

    async def next(self, chunks: AsyncIterator[Any]) -> Any:
        """The next item of a stream, within the idle limit (StopAsyncIteration at its end)."""
        seconds, setting, what = self._left(
            self.limits.idle, "idle_timeout", f"went silent for {self.limits.idle:g} s mid-reply"
        )
        try:
            async with asyncio.timeout(seconds):
                return await chunks.__anext__()
        except TimeoutError:
            raise ProviderTimeout(self.where, setting, what) from None

    async def read(self, response: httpx.Response, limit: int = 1 << 20) -> bytes:
        """A (bounded) whole body, within the idle limit per piece."""
        parts: list[bytes] = []
        size = 0
        pieces = response.aiter_bytes()
        while size < limit:
            try:
                piece = await self.next(pieces)
            except StopAsyncIteration:
                break
            parts.append(piece)
            size += len(piece)
        return b"".join(parts)


def timeout_config(limits: TimeLimits) -> httpx.Timeout:
    import httpx

    # read=None: the phase limits above bound every read; httpx's would apply one figure to all.
    return httpx.Timeout(connect=limits.connect, read=None, write=limits.first_byte, pool=limits.connect)


def error_message(raw: bytes) -> tuple[str, str]:
    """(message, type-or-code) from an error body in OpenAI's, Anthropic's or llama.cpp's shape."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return (text[:500] or "no error message"), ""
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, str):
        return error, ""
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or json.dumps(error)[:500]
        kind = str(error.get("type") or error.get("code") or "")
        return str(message), kind
    return text[:500], ""


def status_error(status: int, raw: bytes, response: Any) -> ProviderHTTPError:
    """The exception for an error status, shaped so errors.classify reads it as litellm's."""
    message, kind = error_message(raw)
    if status in (400, 413, 422) and (_CONTEXT.search(message) or _CONTEXT.search(kind)):
        return ContextWindowExceededError(status, message, response)
    if status in (400, 422):
        return BadRequestError(status, message, response)
    return ProviderHTTPError(status, message, response)


def looks_like_html(content_type: str, head: bytes) -> bool:
    start = head.lstrip()[:15].lower()
    return "html" in content_type or start.startswith((b"<!doctype", b"<html", b"<"))


def bad_response(where: str, what: str) -> LLMError:
    return LLMError(
        "bad_response",
        f"{where} answered with {what}, not the model API; check model.api_base.",
        detail=what,
    )


def incomplete(where: str, what: str) -> LLMError:
    """A stream that ended before its end: retried like a dropped connection (never after text)."""
    return LLMError("connection", f"The reply from {where} was cut off ({what}); retry.", detail=what)


async def sse_data(response: httpx.Response, clock: Clock) -> AsyncIterator[tuple[str, str]]:
    """(event, data) of each server-sent event; raises bad_response for a body that is not SSE."""
    lines = response.aiter_lines()
    event, data = "", list[str]()
    first = True
    while True:
        try:
            line = await clock.next(lines)
        except StopAsyncIteration:
            break
        if first and line.strip():
            first = False
            if not line.startswith(("data:", "event:", ":", "id:", "retry:")):
                what = "an HTML page" if looks_like_html("", line.encode()) else "text that is not a stream"
                raise bad_response(clock.where, what)
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "", list[str]()
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    if data:
        yield event, "\n".join(data)
