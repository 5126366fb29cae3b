"""Finished chat entries stop costing work: however long a session grows while the user follows
the bottom, the pane keeps about a screen and a half of widgets (each one is laid out again
whenever the streaming reply grows); the entries stay, and scrolling up or a find mounts them
again as they were."""

from __future__ import annotations

from agent_tui.frontends.tui.widgets.chat import KEEP_SCREENS, TRIM_STEP, WINDOW, ChatPane
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until
from tests.support.ui_widgets import ChatApp, many


def kept_at_most(pane: ChatPane) -> float:
    """Entries of two rows or more (a reply or a question and the blank row above it) that fill
    the kept screens, and the ones added since the last trim."""
    return KEEP_SCREENS * pane.size.height / 2 + TRIM_STEP + 1


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
            assert pane.mounted_count < kept_at_most(pane)
            assert len(pane.query("ChatItem")) == pane.mounted_count  # really unmounted
            assert pane.unmounted_count == 300 - pane.mounted_count
            before = pane.mounted_count
            pane.scroll_home(animate=False, immediate=True)
            await until(pilot, lambda: pane.mounted_count > before, what="older entries again")

    async def test_unmounted_entries_do_not_keep_what_they_rendered(self):
        """Textual's style-cache lru kept the last 1 024 removed widgets' rendered lines alive
        (Textualize/textual#6665): a long chat's heap, and every full GC pass, grew with it."""
        import gc

        from textual._styles_cache import StylesCache

        def caches() -> int:
            gc.collect()
            return sum(1 for o in gc.get_objects() if isinstance(o, StylesCache))

        # What an earlier test's app left alive is not this pane's (the suite's order decides it).
        before = caches()
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            for entry in many(200):
                await pane.add(entry)
                pane.scroll_end(animate=False, immediate=True)
                await pilot.pause()  # each one drawn, as a chat's replies are
            alive = caches() - before
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
            assert pane.mounted_count < kept_at_most(pane)


def drawn_lines(app) -> list[str]:
    """The first entries as drawn: their first ten lines that are not blank (without the
    scrollbar's column, which only a long chat has)."""
    return [text for line in screen_text(app).splitlines() if (text := line[:-2].rstrip())][:10]


class TestCollapsedEntriesComeBack:
    """What the trim unmounted is only out of the layout: scrolling up, a find and an unfold
    get it back as it was."""

    async def test_scrolling_up_shows_the_oldest_entries_as_they_were_drawn(self):
        from tests.support.ui_widgets import many

        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            for entry in many(6):
                await pane.add(entry)
            await until(pilot, lambda: "x = 5" in screen_text(app), what="the first entries drawn")
            first_drawn = drawn_lines(app)
            for entry in many(120)[6:]:
                await pane.add(entry)
                pane.scroll_end(animate=False, immediate=True)
                await pilot.pause()
            assert pane.unmounted_count > 100
            assert "question 0" not in screen_text(app)
            for _ in range(200):  # a reader paging up, as far as the first question
                if pane.unmounted_count == 0 and pane.scroll_y == 0:
                    break
                pane.scroll_page_up(animate=False)
                await pilot.pause()
            await until(pilot, lambda: pane.unmounted_count == 0 and pane.scroll_y == 0, what="the top")
            await pilot.pause()
            assert len(first_drawn) > 6 and drawn_lines(app)[: len(first_drawn)] == first_drawn

    async def test_find_reaches_an_entry_trimmed_while_following(self, server, tmp_path, workspace):
        from agent_tui.frontends.tui.widgets.find_bar import FindBar

        server.responder = lambda body: Reply(text="Noted.\n\n- one\n- two")
        app = make_app(make_config(server, tmp_path / "f.db"), workspace)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            chat = app.view.chat
            for turn in range(30):
                await send(pilot, f"question {turn}" + (" needle-kq" if turn == 2 else ""))
                await settle(pilot)
            assert chat.unmounted_count > 4  # question 2 was trimmed while the chat followed
            assert "needle-kq" not in screen_text(app)
            await pilot.press("ctrl+f")
            await pilot.press(*"needle-kq")
            await until(pilot, lambda: chat.query(".-found"), what="the match")
            assert "needle-kq" in chat.query_one(".-found").entry.text
            await until(pilot, lambda: "needle-kq" in screen_text(app), what="the match in view")
            assert app.query_one(FindBar).border_subtitle == "1/1"

    async def test_an_unfolded_tool_line_is_unfolded_when_it_comes_back(self):
        from agent_tui.frontends.tui.transcript import ToolEntry
        from agent_tui.frontends.tui.widgets.chat_items import ToolLine
        from tests.support.ui_widgets import many

        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            line = await pane.add(
                ToolEntry(
                    "bash", "pytest -q", "ok", "exit 0", "passed-line-zq", "c1", display="passed-line-zq"
                )
            )
            await pilot.pause()
            line.action_toggle_output()
            for entry in many(100):
                await pane.add(entry)
                pane.scroll_end(animate=False, immediate=True)
                await pilot.pause()
            assert not line.is_attached and pane.unmounted_count > 50
            await pane.jump_top()
            await until(
                pilot, lambda: pane.scroll_y == 0 and "passed-line-zq" in screen_text(app), what="unfolded"
            )
            again = pane.query_one(ToolLine)
            assert again is not line and again.expanded
