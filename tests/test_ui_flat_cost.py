"""Finished chat entries stop costing work: however long a session grows while the user follows
the bottom, the pane keeps a bounded number of widgets (each one is laid out again whenever the
streaming reply grows); the entries stay and scrolling up mounts them again."""

from __future__ import annotations

from agent_tui.ui.widgets.chat import MAX_MOUNTED, WINDOW, ChatPane
from tests.test_ui_widgets import ChatApp, many
from tests.ui_helpers import until


class TestBoundedPane:
    async def test_a_growing_session_keeps_a_bounded_number_of_widgets(self):
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            for entry in many(300):
                await pane.add(entry)
                pane.scroll_end(animate=False, immediate=True)  # following the bottom, as the view does
            await pilot.pause()
            assert len(pane.entries) == 300
            assert pane.mounted_count < MAX_MOUNTED + WINDOW
            assert len(pane.query("ChatItem")) == pane.mounted_count  # really unmounted
            assert pane.unmounted_count == 300 - pane.mounted_count
            pane.scroll_home(animate=False, immediate=True)
            await until(pilot, lambda: pane.mounted_count > MAX_MOUNTED, what="older entries again")

    async def test_reading_older_entries_keeps_them_mounted(self):
        """Someone scrolled up is not yanked: nothing is unmounted while they read."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            await pane.load(many(40))
            # On a busy machine (CI) the adds below outran the layout: the pane judged by a stale
            # height that the reader was within a page of the bottom, and trimmed.
            await until(pilot, lambda: pane.max_scroll_y > 0, what="the entries laid out")
            pane.scroll_home(animate=False, immediate=True)
            await until(pilot, lambda: pane.scroll_y == 0, what="scrolled to the top")
            before = pane.mounted_count
            for entry in many(80):
                await pane.add(entry)
            assert pane.mounted_count >= before + 80
