"""Opening the blob browser over a real store, for the blob-browser tests."""

from __future__ import annotations

from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from tests.support.ui_helpers import settle, until
from tests.support.ui_session_fixtures import send

SIZE = (120, 36)


async def open_blobs(pilot, command: str = "/blobs") -> BlobsScreen:
    """Open the browser with `/blobs [REF]` and wait for its rows and viewer."""
    await send(pilot, command)
    await until(pilot, lambda: isinstance(pilot.app.screen, BlobsScreen), what="the browser")
    screen = pilot.app.screen
    await ready(pilot, screen)
    return screen


async def ready(pilot, screen: BlobsScreen, searches: int = 1) -> None:
    await until(pilot, lambda: screen.searches >= searches, what="the rows")
    await settle(pilot)
    await until(pilot, lambda: screen.viewer.settled, what="the viewer's lines")
    await pilot.pause()
