"""Paging up through a long chat costs a layout per page and no rebuilt map per scroll frame.

`benchmarks/tui_paging.py` measured ~200 ms of the app thread's CPU per PageUp from the bottom of
a 2 000-message session. Two kinds of work made it: older entries went in 4 at a time, and each
batch laid out every mounted entry again (~4 layouts per page); and the reading place, taken on
each of the dozen frames a PageUp animates, asked Textual for the region of items off screen,
which rebuilt its map of every mounted widget once per frame. Both are counted here, not timed.
"""

from __future__ import annotations

from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import settle
from tests.support.ui_session_fixtures import markdown_chat_app

PAGES = 8


class TestPagingUpCostsALayoutPerPage:
    async def test_pageups_lay_out_about_once_a_page_and_build_no_map_per_frame(
        self, server, tmp_path, workspace
    ):
        """Textual's private `Compositor.reflow` (a layout of every widget) and `_arrange_root`
        with `visible_only=False` (its map of every widget): a Textual that renames them fails
        here."""
        app = await markdown_chat_app(make_config(server, tmp_path / "p.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            chat = app.view.chat
            chat.focus()
            await pilot.wait_for_scheduled_animations()
            compositor = app.screen._compositor
            layouts, full_maps, frames = [0], [0], [0]
            reflow, arrange_root = compositor.reflow, compositor._arrange_root

            def counted_reflow(*args, **kwargs):
                layouts[0] += 1
                return reflow(*args, **kwargs)

            def counted_arrange(parent, size, visible_only=True):
                full_maps[0] += not visible_only
                return arrange_root(parent, size, visible_only=visible_only)

            def watched(old: float, new: float) -> None:
                frames[0] += 1

            compositor.reflow, compositor._arrange_root = counted_reflow, counted_arrange
            chat.watch(chat, "scroll_y", watched, init=False)
            unmounted = chat.unmounted_count
            try:
                for _ in range(PAGES):
                    await pilot.press("pageup")
                    await pilot.wait_for_scheduled_animations()
                    await settle(pilot)
            finally:
                del compositor.reflow, compositor._arrange_root
            mounted_entries = unmounted - chat.unmounted_count
            assert mounted_entries > 0, "paging up mounted no older entry"
            assert chat.scroll_y > 0 and not chat._following  # a reader up in the chat
            # The animation scrolled in many frames: each must not rebuild the whole map (it did
            # once per frame: 152 for 8 PageUps); what is left is the map a mount needs (~21).
            assert frames[0] > 2 * PAGES, frames
            assert full_maps[0] <= 4 * PAGES, (full_maps, frames)
            assert layouts[0] <= 2 * PAGES, (layouts, mounted_entries)  # 32 with batches of 4, 9 now
