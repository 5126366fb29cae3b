"""Paging up through a long chat shows every entry on the way: no PageUp jumps over any.

Older entries go in above the view in batches while the reader pages up, and the view is put
back on the place they were reading. A PageUp scrolls with an animation over a dozen frames, so
a batch can go in while the view is still moving; the tests of the batches' cost page the same
way but look only at how much work a page makes, not at what the reader was shown.

Whether an animation frame falls between a batch's mount and the view's restore depends on the
machine's timing: before the fix this test failed in about half of its runs (a page skipped 7-12
entries), so it pages through many batches to give the race many chances.
"""

from __future__ import annotations

from itertools import pairwise

from agent_tui.frontends.tui.widgets.chat import BATCH
from agent_tui.frontends.tui.widgets.chat_items import ChatItem
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import settle
from tests.support.ui_session_fixtures import markdown_chat_app

PAGES = 24


def on_screen(chat) -> list[int]:
    """The indexes in `chat.entries` of the entries with a row in the view."""
    top = chat.scroll_y
    bottom = top + chat.scrollable_content_region.height
    index = {id(entry): i for i, entry in enumerate(chat.entries)}
    return sorted(
        index[id(item.entry)]
        for item in chat.query(ChatItem)
        if item.display and item.virtual_region.bottom > top and item.virtual_region.y < bottom
    )


class TestPagingUpShowsEveryEntry:
    async def test_animated_pageups_through_mounted_batches_never_jump_over_an_entry(
        self, server, tmp_path, workspace
    ):
        """Every entry between the bottom and where the pages end up was on screen after some
        PageUp, while batches of older entries mount during the PageUps' animations."""
        app = await markdown_chat_app(make_config(server, tmp_path / "r.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            chat = app.view.chat
            await pilot.wait_for_scheduled_animations()
            unmounted = chat.unmounted_count
            pages = [on_screen(chat)]
            for _ in range(PAGES):
                await pilot.press("pageup")
                await pilot.wait_for_scheduled_animations()
                await settle(pilot)
                pages.append(on_screen(chat))
            assert unmounted - chat.unmounted_count >= 3 * BATCH, "paging up crossed too few batches"
            assert chat.unmounted_count > 0, "paging reached the top: it no longer pages through batches"
            assert all(page[0] < before[0] for before, page in pairwise(pages)), pages
            seen = set().union(*map(set, pages))
            unseen = sorted(set(range(pages[-1][0], pages[0][-1] + 1)) - seen)
            assert not unseen, f"entries {unseen} were never on screen; the pages showed {pages}"
