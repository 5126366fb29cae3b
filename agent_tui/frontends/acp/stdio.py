"""Stdout is the protocol: the real stdin/stdout are taken for ACP and nothing else reaches them.

`claim_stdio` runs first in `agent-tui acp`: it keeps private duplicates of fd 0 and fd 1 for the
protocol, then points fd 1 (and `sys.stdout`) at stderr and fd 0 at /dev/null. A stray `print`,
a library's warning or a child process writing to "stdout" lands on stderr, and no child can eat
the editor's requests. The private descriptors are not inherited by children.

`LineTransport` frames JSON-RPC messages one per line. Unlike the SDK's reader, which logs and
skips a line it cannot parse, it answers garbage with the JSON-RPC error the spec names (parse
error, invalid request), so a client sees what went wrong and the agent keeps serving.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import sys
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

LINE_LIMIT = 50 * 1024 * 1024
"""Longest request line accepted (embedded files and images travel inline)."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@dataclass(frozen=True)
class ProtocolFds:
    """The descriptors the protocol owns."""

    read: int
    """A duplicate of the original stdin."""
    write: int
    """A duplicate of the original stdout."""


def claim_stdio() -> ProtocolFds:
    """Take stdin/stdout for the protocol; from now on fd 1 and `sys.stdout` are stderr."""
    sys.stdout.flush()
    fds = ProtocolFds(read=os.dup(0), write=os.dup(1))  # os.dup: not inheritable
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    return fds


class Writer(Protocol):
    def write(self, data: bytes) -> None: ...
    async def drain(self) -> None: ...
    def is_closing(self) -> bool: ...
    def close(self) -> None: ...


class FileWriter:
    """Blocking writes for a stdout that is a regular file (`agent-tui acp > log`): asyncio's
    pipe transport refuses files, and a file never makes a writer wait."""

    def __init__(self, fd: int) -> None:
        self._file = os.fdopen(fd, "wb", buffering=0)

    def write(self, data: bytes) -> None:
        self._file.write(data)

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return self._file.closed

    def close(self) -> None:
        self._file.close()


async def open_streams(fds: ProtocolFds) -> tuple[asyncio.StreamReader, Writer]:
    """Asyncio streams over the protocol's descriptors (pipes, as editors and tests give)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    source = os.fdopen(fds.read, "rb", buffering=0)
    if stat.S_ISREG(os.fstat(fds.read).st_mode):
        data = source.read()  # a file of requests: read it whole, then end of input
        reader.feed_data(data)
        reader.feed_eof()
    else:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    if stat.S_ISREG(os.fstat(fds.write).st_mode):
        return reader, FileWriter(fds.write)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(fds.write, "wb", buffering=0)
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


def error_reply(
    code: int, message: str, request_id: Any = None, details: str | None = None
) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["data"] = {"details": details}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def check_message(message: Any) -> dict[str, Any] | None:
    """The JSON-RPC error for a parsed line that is not a request, notification or response."""
    if not isinstance(message, dict):
        return error_reply(INVALID_REQUEST, "Invalid Request", details="a message must be a JSON object")
    request_id = message.get("id")
    if "id" in message and (
        isinstance(request_id, bool) or not isinstance(request_id, (str, int, type(None)))
    ):
        return error_reply(
            INVALID_REQUEST, "Invalid Request", details="id must be a string, a number or null"
        )
    method = message.get("method")
    if "method" in message and not isinstance(method, str):
        return error_reply(INVALID_REQUEST, "Invalid Request", request_id, "method must be a string")
    if method is None and "id" not in message:
        return error_reply(INVALID_REQUEST, "Invalid Request", details="neither a method nor an id")
    if method is None and "result" not in message and "error" not in message:
        return error_reply(INVALID_REQUEST, "Invalid Request", request_id, "no method, result or error")
    return None


class LineTransport:
    """An `acp` Transport: one JSON message per line, bad lines answered, never fatal."""

    def __init__(self, reader: asyncio.StreamReader, writer: Writer) -> None:
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()
        self._closed = False

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode(
            "utf-8",
            "replace",  # a lone surrogate from a tool's output must not kill the line
        )
        # Held across write and drain, so messages leave in the order they were sent.
        async with self._lock:
            if self._closed or self._writer.is_closing():
                raise ConnectionError("the client closed the connection")
            self._writer.write(data)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self._reader.readline()
            except ValueError:  # longer than LINE_LIMIT: the rest of it was discarded
                await self._answer(error_reply(PARSE_ERROR, "Parse error", details="message too long"))
                continue
            if not line:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:  # also invalid UTF-8
                log.warning("unparsable line from the client: %.200r", line)
                await self._answer(error_reply(PARSE_ERROR, "Parse error", details=str(exc)[:200]))
                continue
            problem = check_message(message)
            if problem is not None:
                await self._answer(problem)
                continue
            checked: dict[str, Any] = message
            return checked

    async def _answer(self, reply: dict[str, Any]) -> None:
        try:
            await self.send(reply)
        except (ConnectionError, OSError):
            log.info("could not answer a bad message: the client is gone")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._writer.close()
        except Exception:
            log.debug("closing the protocol's stdout failed", exc_info=True)
