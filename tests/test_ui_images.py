"""The chat shows a chip for each picture sent with a message, live and after resume."""

from __future__ import annotations

import pytest

from agent_tui.frontends.tui.widgets.chat_items import UserItem
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.images import png
from tests.support.ui_helpers import make_app, screen_text, send, settle


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


class TestImageChip:
    async def test_chip_live_and_after_resume(self, server, config, workspace):
        """`@shot.png` shows `[image shot.png 120 KB]` under the message, and again on resume."""
        (workspace / "shot.png").write_bytes(png(8, 8, pad=120 * 1024 - 200))
        size_kb = round((workspace / "shot.png").stat().st_size / 1024)
        assert size_kb == 120
        server.enqueue(Reply(text="a grey square"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "what is in @shot.png?")
            await settle(pilot)
            item = app.query_one(UserItem)
            assert item.entry.chips == ("[image shot.png 120 KB]",)
            assert "[image shot.png 120 KB]" in screen_text(app)
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert again.query_one(UserItem).entry.chips == ("[image shot.png 120 KB]",)
            assert "[image shot.png 120 KB]" in screen_text(again)

    async def test_no_chip_for_a_text_file(self, server, config, workspace):
        """A text file named in the message is an attachment, not a picture: no chip."""
        (workspace / "notes.txt").write_text("milk\n")
        server.enqueue(Reply(text="ok"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "read @notes.txt please")
            await settle(pilot)
            assert app.query_one(UserItem).entry.chips == ()
            assert "[image" not in screen_text(app)
