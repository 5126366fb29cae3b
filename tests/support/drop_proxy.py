"""A TCP proxy in front of a local server whose connections a test can drop at once — a network
that fails mid-stream, for the reconnect tests (no mock of the client or the server)."""

from __future__ import annotations

import asyncio
import contextlib


class DropProxy:
    def __init__(self, port: int) -> None:
        self.target = port
        self.port = 0
        self.connections = 0
        """Connections accepted so far (a reconnect shows as one more)."""
        self.dropped = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> DropProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.drop(count=False)
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self._writers |= {writer, up_writer}

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}

    def drop(self, *, count: bool = True) -> None:
        """Cut every open connection, both ways, as a network failure would."""
        if count and self._writers:
            self.dropped += 1
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
