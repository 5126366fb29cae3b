"""web_fetch connects to the address it checked (issue 45 #2 of the everyday lane's leftovers):
a name that resolves to an allowed address when checked and to another one a moment later (DNS
rebinding) must not be resolved a second time by the HTTP client. The resolver here answers
like a rebinding DNS server — the first answer is the local page server, every later one a
loopback address where nothing listens — and the page server is real."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from agent_tui.config.schema import WebSettings
from agent_tui.tools.base import ToolContext, ToolServices
from agent_tui.tools.web_fetch import WebFetchTool
from tests.support.web_pages import Pages

NAME = "rebind.test"


@pytest.fixture
def rebinding_dns(monkeypatch, pages: Pages) -> list[str]:
    """Answers for NAME: first the page server's address, then 127.0.0.2 (nothing listens)."""
    asked: list[str] = []
    real = asyncio.base_events.BaseEventLoop.getaddrinfo

    async def getaddrinfo(self: Any, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != NAME:
            return await real(self, host, port, *args, **kwargs)
        asked.append(host)
        address = "127.0.0.1" if len(asked) == 1 else "127.0.0.2"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 80)))]

    monkeypatch.setattr(asyncio.base_events.BaseEventLoop, "getaddrinfo", getaddrinfo)
    return asked


async def test_the_connection_goes_to_the_checked_address_with_the_host_kept(
    pages: Pages, rebinding_dns: list[str], tmp_path
):
    port = pages.server_address[1]
    settings = WebSettings(private_hosts=[NAME])
    out = await WebFetchTool().run(
        {"url": f"http://{NAME}:{port}/page.html"},
        ToolContext(tmp_path, "s", "c", services=ToolServices(web=settings)),
    )
    assert not out.is_error, out.text
    assert "HTTP 200" in out.summary
    assert rebinding_dns == [NAME]  # resolved once, when checked
    assert pages.hosts_seen == [f"{NAME}:{port}"]


async def test_a_name_that_rebinds_to_a_private_address_is_refused_when_checked(
    pages: Pages, rebinding_dns: list[str], tmp_path
):
    port = pages.server_address[1]
    out = await WebFetchTool().run(
        {"url": f"http://{NAME}:{port}/page.html"},
        ToolContext(tmp_path, "s", "c", services=ToolServices(web=WebSettings(private_hosts=[]))),
    )
    assert out.is_error and "a private address (127.0.0.1)" in out.text
    assert pages.hosts_seen == []
