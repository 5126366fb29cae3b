"""One call over the direct HTTP path: the key, the headers, the body built off the loop, the send.

The body — every message of a long history serialised, and for Anthropic translated — is built
in a worker thread, so the UI loop keeps drawing while a 3 000-message request is prepared; what
remains on the loop is handing bytes to the socket (a piece at a time) and reading the stream.
Status errors become exceptions errors.classify reads like litellm's (llm/http_common.py), so
error kinds, messages and the retry policy (llm/provider.py) are the same on both paths.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import os
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from agent_tui.base.messages import TokenUsage
from agent_tui.llm.errors import LLMError
from agent_tui.llm.http_common import Clock, client, status_error, timeout_config
from agent_tui.llm.routes import Route
from agent_tui.llm.stream import StreamEvent, TextChunk, UsageChunk
from agent_tui.llm.wire_format import DirectFormat, Memo

PLACEHOLDER_KEY = "sk-no-key-required"
"""Sent to an api_base when no key is configured: local servers ignore it, some need one."""
_HEADER_KEYS = ("headers", "extra_headers")
T = TypeVar("T")
_CLIENT_ONLY = frozenset({"timeout", "num_retries", "max_retries", "api_base", "api_key", "drop_params"})
"""litellm keyword arguments that are not part of the request body."""


def key_for(route: Route, model: str, api_base: str | None, api_key_env: str | None) -> str:
    """The key to send: from `api_key_env`, else the provider's usual variable; a placeholder
    for an api_base without one; no api_base and no key is a missing_key error before any call."""
    variable = api_key_env or route.key_env
    key = os.environ.get(variable) or None if variable else None
    if key is not None:
        return key
    if api_base:
        return PLACEHOLDER_KEY
    name = variable or "model.api_key_env"
    raise LLMError("missing_key", f"No API key for {model}: set {name} in your environment.")


INLINE_MESSAGES = 64
"""Up to this many messages to serialise, the body is built on the loop (well under 1 ms): handing
so little to a worker thread costs more than it saves when the machine is busy."""


async def _off_loop(build: Callable[[], T], work: int) -> T:
    if work <= INLINE_MESSAGES:
        return build()
    return await asyncio.to_thread(build)


PIECE = 1 << 16
"""Bytes handed to the socket at a time. A 3 000-message body is ~400 KB, and one `send` of all
of it held the loop for 4-5 ms on a busy machine (the kernel copies it and runs loopback delivery
inside the call); between pieces the loop gets its turn."""


class Pieces:
    """A request body sent about PIECE bytes at a time, made from the encoder's chunks (one per
    message) as it goes: the headers leave first, and the body is never joined whole (a 400 KB
    join cost ~0.3 ms before the first byte). Re-iterable (not a generator), so a transport that
    sends the request again gets the whole body again; the caller sets Content-Length, so the
    request is not chunked."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.size = sum(map(len, chunks))
        """The body's length, for Content-Length (where each chunk ends is found while sending,
        after the headers have left)."""

    def pieces(self) -> Iterator[bytes]:
        chunks = self.chunks
        ends = list(itertools.accumulate(map(len, chunks)))
        start = sent = 0
        while start < len(chunks):
            # The chunks up to the first that reaches a piece's worth, joined (at most one
            # piece plus that chunk), then cut to pieces when that chunk was a large one.
            stop = min(bisect.bisect_left(ends, sent + PIECE, lo=start) + 1, len(chunks))
            group = chunks[start] if stop == start + 1 else b"".join(chunks[start:stop])
            for at in range(0, len(group), PIECE):
                yield group[at : at + PIECE]
            start, sent = stop, ends[stop - 1]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for n, piece in enumerate(self.pieces()):
            if n:
                await asyncio.sleep(0)
            yield piece


class DirectCall:
    """One call (with its own clock) to the route's endpoint."""

    def __init__(
        self,
        route: Route,
        format: DirectFormat,
        key: str,
        extra: dict[str, Any],
        clock: Clock,
        memo: Memo | None = None,
    ) -> None:
        self.route = route
        self.format = format
        self.clock = clock
        self.memo = memo
        self.headers = {"content-type": "application/json", **format.headers(key)}
        self.body_extra: dict[str, Any] = {}
        for name, value in extra.items():
            if name in _HEADER_KEYS and isinstance(value, dict):
                self.headers.update({str(k).lower(): str(v) for k, v in value.items()})
            elif name not in _CLIENT_ONLY:
                self.body_extra[name] = value

    async def _body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        max_tokens: int | None,
        stream: bool,
    ) -> list[bytes]:
        """The body as chunks whose concatenation is the JSON."""
        return await self.format.encode(
            self.route,
            messages,
            tools,
            max_tokens,
            stream=stream,
            extra=self.body_extra,
            memo=self.memo,
            off_loop=_off_loop,
        )

    async def _response(self, body: list[bytes], stream: bool) -> Any:
        """The started response, or the classified status error (its body read within limits)."""
        headers = dict(self.headers)
        if stream:
            headers["accept"] = "text/event-stream"
        pieces = Pieces(body)
        content: bytes | Pieces = pieces
        if pieces.size > PIECE:
            headers["content-length"] = str(pieces.size)
        else:
            content = b"".join(body)
        pool = await client()
        request = pool.build_request(
            "POST",
            self.route.url,
            content=content,
            headers=headers,
            timeout=timeout_config(self.clock.limits),
        )
        response = await self.clock.send(request)
        if response.status_code >= 400:
            try:
                raw = await self.clock.read(response, 1 << 16)
            finally:
                await response.aclose()
            raise status_error(response.status_code, raw, response)
        return response

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, max_tokens: int | None
    ) -> AsyncGenerator[StreamEvent, None]:
        body = await self._body(messages, tools, max_tokens, stream=True)
        response = await self._response(body, stream=True)
        try:
            async for event in self.format.events(response, self.clock):
                yield event
        finally:
            await response.aclose()

    async def complete(
        self, messages: list[dict[str, Any]], max_tokens: int | None
    ) -> tuple[str, TokenUsage]:
        """A non-streamed reply (Anthropic's is streamed and collected: one parser, one shape)."""
        if self.format.streams_completions:
            parts: list[str] = []
            usage = TokenUsage()
            async for event in self.stream(messages, None, max_tokens):
                if isinstance(event, TextChunk):
                    parts.append(event.text)
                elif isinstance(event, UsageChunk):
                    usage = event.usage
            return "".join(parts), usage
        body = await self._body(messages, None, max_tokens, stream=False)
        response = await self._response(body, stream=False)
        try:
            return await self.format.completion(response, self.clock)
        finally:
            await response.aclose()
