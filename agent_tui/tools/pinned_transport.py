"""An httpx transport that connects only to addresses checked beforehand.

web_fetch resolves a host once, refuses it when the answer is private (tools/web_fetch.py), and
must then connect to that very answer: letting the HTTP client resolve the name again would let a
DNS server answer a public address to the check and a private one to the connection (DNS
rebinding). The transport's network backend swaps the host for its pinned address at the TCP
connect only; the URL is untouched, so the Host header, TLS's server name (SNI) and the
certificate check still use the host name. A host nobody pinned is not connected to at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpcore
import httpx


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, pins: dict[str, str]) -> None:
        self.pins = pins
        self._backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = self.pins.get(host.lower().rstrip("."))
        if address is None:
            raise httpcore.ConnectError(f"{host}: not checked before connecting")
        return await self._backend.connect_tcp(address, port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("web_fetch does not connect to unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """Connects host `h` to `pins[h]` (set by the caller after checking it), to nothing else."""

    def __init__(self) -> None:
        super().__init__(trust_env=False)
        self.pins: dict[str, str] = {}
        # The pool httpx builds is replaced by one with the pinning backend; everything else
        # (request mapping, errors) stays httpx's own.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            network_backend=_PinnedBackend(self.pins),
        )
