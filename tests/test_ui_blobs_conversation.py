"""The blob browser's conversation view (F3): transcripts listed, recall over what was said, a
hit opening the transcript at its message — and browsing, of outputs or transcripts, writing
nothing to the database (reads are reads)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from tests.support.ui_blobs import open_blobs, ready
from tests.support.ui_helpers import screen_text, settle, until
from tests.support.ui_session_fixtures import loop_app, run_turns, send

SIZE = (120, 36)


def db_state(path: Path) -> str:
    """The database as bytes on disk: the main file and its write-ahead log."""
    digest = hashlib.sha256()
    for suffix in ("", "-wal"):
        file = Path(f"{path}{suffix}")
        digest.update(file.read_bytes() if file.exists() else b"")
    return digest.hexdigest()


class TestConversationView:
    async def test_search_opens_the_transcript_at_the_message(self, loop_config, loop_workspace):
        """F3 lists the session's transcript; a search finds what the user said, and the hit
        opens the transcript at that message with the words marked."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 2)
            await send(pilot, "remember that the pelican deploy code is 4471")
            await run_turns(pilot, 1, start=3)
            screen = await open_blobs(pilot)
            searches = screen.searches
            await pilot.press("f3")
            await until(pilot, lambda: screen.searches > searches, what="the transcripts")
            assert "Conversation · this session · 1 transcript(s)" in screen_text(app)
            searches = screen.searches
            await pilot.press("ctrl+f", *"pelican code", "enter")
            await ready(pilot, screen, searches=searches + 1)
            await until(pilot, lambda: screen.viewer.source is not None and screen.viewer.matches, what="hit")
            await settle(pilot)
            rows = list(screen.rows.values())
            assert [(r.seq, r.ref.tool_name) for r in rows] == [
                (9, "user")
            ]  # after two turns of four messages
            text = screen_text(app)
            assert "search: pelican code · 1 message(s)" in text
            assert "transcript of" in text and "at message #9" in text
            viewer = screen.viewer
            start = viewer.source.line_of(9)
            assert start + 1 in viewer.matches and viewer.current == start + 1
            assert "remember that the pelican deploy code is 4471" in text


class TestReadsAreReads:
    async def test_browsing_writes_nothing(self, loop_config, loop_workspace):
        """Listing, opening, scrolling and grepping outputs, then the conversation view: the
        database file is byte for byte the same, and no output counts a read."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            services = await app.services()
            store = services.store
            await store.results.wait_indexed()
            before = db_state(store.path)
            screen = await open_blobs(pilot)
            await pilot.press("down", "down", "enter")
            await until(pilot, lambda: screen.viewer.settled, what="the viewer")
            await pilot.press("pagedown", "pagedown", "G")
            await until(pilot, lambda: screen.viewer.settled, what="the viewer")
            await pilot.press("slash", *"row 7", "enter")
            await until(pilot, lambda: bool(screen.viewer.matches), what="grep")
            searches = screen.searches
            await pilot.press("f3")
            await until(pilot, lambda: screen.searches > searches, what="the transcripts")
            await until(
                pilot, lambda: screen.viewer.source is not None and screen.viewer.line_count > 0, what="open"
            )
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, BlobsScreen), what="back")
            assert db_state(store.path) == before
            assert [b.access_count for b in await store.results.list_blobs()] == [0, 0, 0]
