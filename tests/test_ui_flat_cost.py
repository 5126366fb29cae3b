"""Finished chat entries stop costing work: however long a session grows while the user follows
the bottom, the pane keeps a bounded number of widgets (each one is laid out again whenever the
streaming reply grows); the entries stay and scrolling up mounts them again."""

from __future__ import annotations

from agent_tui.frontends.tui.widgets.chat import MAX_MOUNTED, WINDOW, ChatPane
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, send, settle, until
from tests.support.ui_widgets import ChatApp, many


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

    async def test_unmounted_entries_do_not_keep_what_they_rendered(self):
        """Textual's style-cache lru kept the last 1 024 removed widgets' rendered lines alive
        (Textualize/textual#6665): a long chat's heap, and every full GC pass, grew with it."""
        import gc

        from textual._styles_cache import StylesCache

        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            for entry in many(200):
                await pane.add(entry)
                pane.scroll_end(animate=False, immediate=True)
                await pilot.pause()  # each one drawn, as a chat's replies are
            gc.collect()
            alive = sum(1 for o in gc.get_objects() if isinstance(o, StylesCache))
            widgets = len(list(app.query("*")))
            assert pane.unmounted_count > 120
            assert alive <= widgets + 2 * WINDOW, (alive, widgets)

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


class TestBoundedInTheApp:
    async def test_turns_in_the_real_app_keep_the_pane_bounded(self, server, tmp_path, workspace):
        """The reply's final rendering is shorter than its streamed text, so at the end of each
        turn the layout pulled the view up a line at the bottom of the anchored pane. That was
        taken for the user scrolling up: the pane stopped following and never trimmed again
        (at turn 300 a reply cost 3x what it cost at turn 2)."""
        reply = (
            "Because:\n\n" + "\n".join(f"- **point {n}**: `detail`" for n in range(4)) + "\n\n```\ncode\n```"
        )
        server.responder = lambda body: Reply(text=reply)
        app = make_app(make_config(server, tmp_path / "b.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            pane = app.view.chat
            for turn in range(45):
                await send(pilot, f"question {turn}")
                await settle(pilot)
            assert len(pane.entries) >= 90
            assert pane.mounted_count < MAX_MOUNTED + WINDOW
