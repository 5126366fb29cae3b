"""Chat pane and input, driven with Pilot on small apps holding just the widget."""

from __future__ import annotations

from agent_tui.frontends.tui.transcript import AgentEntry, ToolEntry
from agent_tui.frontends.tui.widgets.chat import CHUNK, WINDOW, ChatPane
from agent_tui.frontends.tui.widgets.chat_items import AgentItem, ToolLine
from agent_tui.frontends.tui.widgets.prompt import CommandMenu, PromptInput
from tests.support.ui_helpers import screen_text, until
from tests.support.ui_widgets import ChatApp, PromptApp, many


class TestPrompt:
    async def test_enter_sends_and_ctrl_j_breaks_lines(self):
        """Enter sends the whole text; Ctrl+J and Shift+Enter insert newlines instead."""
        app = PromptApp()
        async with app.run_test() as pilot:
            app.query_one(PromptInput).focus()
            await pilot.press("h", "i", "ctrl+j", "y", "o", "shift+enter", "!", "enter")
            await pilot.pause()
            assert app.sent == ["hi\nyo\n!"]
            assert app.query_one(PromptInput).text == ""

    async def test_history_up_and_down(self):
        """Up on the first line walks back through sends; Down returns to the draft."""
        app = PromptApp()
        async with app.run_test() as pilot:
            prompt = app.query_one(PromptInput)
            prompt.focus()
            for word in ("one", "two"):
                await pilot.press(*word, "enter")
            await pilot.press("d", "r")
            await pilot.press("up")
            assert prompt.text == "two"
            await pilot.press("up")
            assert prompt.text == "one"
            await pilot.press("down")
            assert prompt.text == "two"
            await pilot.press("down")
            assert prompt.text == "dr"

    async def test_up_inside_multiline_moves_the_cursor(self):
        """Up on a later line moves the cursor, not through history."""
        app = PromptApp()
        async with app.run_test() as pilot:
            prompt = app.query_one(PromptInput)
            prompt.focus()
            await pilot.press("o", "l", "d", "enter", "a", "ctrl+j", "b", "up")
            assert prompt.text == "a\nb" and prompt.cursor_location[0] == 0

    async def test_slash_menu_completes(self):
        """Typing `/co` lists compact, context, cost and config; Down then Tab completes the second."""
        app = PromptApp()
        async with app.run_test() as pilot:
            prompt = app.query_one(PromptInput)
            menu = app.query_one(CommandMenu)
            prompt.focus()
            await pilot.press("/", "c", "o")
            await pilot.pause()
            assert menu.display and menu.option_count == 4
            await pilot.press("down", "tab")
            assert prompt.text == "/context" and not menu.display

    async def test_enter_completes_partial_then_sends_whole(self):
        """Enter on `/comp` completes to `/compact ` (it takes an argument); Enter sends."""
        app = PromptApp()
        async with app.run_test() as pilot:
            prompt = app.query_one(PromptInput)
            prompt.focus()
            await pilot.press("/", "c", "o", "m", "p", "enter")
            assert prompt.text == "/compact " and app.sent == []
            await pilot.press("n", "o", "w", "enter")
            assert app.sent == ["/compact now"]

    async def test_escape_hides_menu(self):
        """Escape closes the menu and keeps the text."""
        app = PromptApp()
        async with app.run_test() as pilot:
            app.query_one(PromptInput).focus()
            await pilot.press("/", "escape")
            assert not app.query_one(CommandMenu).display
            assert app.query_one(PromptInput).text == "/"


class TestChatPane:
    async def test_only_the_newest_are_mounted(self):
        """Loading 2 000 entries mounts only the newest window; the rest wait as values."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            await pane.load(many(2000))
            await pilot.pause()
            assert pane.mounted_count == WINDOW
            assert pane.unmounted_count == 2000 - WINDOW
            assert len(pane.query(AgentItem)) + len(pane.query("UserItem")) == WINDOW
            assert pane.scroll_y == pane.max_scroll_y

    async def test_scrolling_to_top_mounts_older_and_keeps_the_view(self):
        """Reaching the top mounts the next chunk above, without jumping the view."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            await pane.load(many(200))
            await pilot.pause()
            first_visible = pane._items[0]
            pane.scroll_home(animate=False, immediate=True)
            await until(
                pilot, lambda: pane.mounted_count > WINDOW and not pane._loading_older, what="older entries"
            )
            await pilot.pause()
            assert WINDOW < pane.mounted_count < 200
            # The entry that was at the top is still at the top of the viewport: older ones
            # went in above it.
            assert abs(first_visible.region.y - pane.region.y) <= 2
            assert pane.scroll_y > pane.size.height

    async def test_mount_older_keeps_order(self):
        """Older entries mount above the mounted ones, in transcript order."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            await pane.load(many(200))
            await pane.mount_older(CHUNK)
            await pilot.pause()
            texts = [item.entry.text for item in pane._items]
            assert texts == [e.text for e in pane.entries[200 - WINDOW - CHUNK :]]

    async def test_short_items_fill_the_screen(self):
        """One-line entries that do not fill the pane pull in older ones until it scrolls."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            await pane.load([ToolEntry("bash", f"ls {i}", "ok", "exit 0", "", f"c{i}") for i in range(500)])
            await until(pilot, lambda: pane.virtual_size.height > pane.size.height, what="a scrollable pane")
            assert WINDOW < pane.mounted_count < 500
            assert pane.scroll_y == pane.max_scroll_y

    async def test_tool_line_unfolds_on_enter_and_click(self):
        """A tool call is one line; Enter or a click shows what the model saw."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            await pane.load(
                [ToolEntry("bash", "pytest -q", "ok", "exit 0 · 1.9 s", "line one\nline two", "c1")]
            )
            await pilot.pause()
            line = pane.query_one(ToolLine)
            assert line.size.height == 1
            line.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert line.size.height == 3
            await pilot.click(ToolLine)
            await pilot.pause()
            assert line.size.height == 1

    async def test_running_tool_line_finishes(self):
        """A running line shows a timer; replacing its entry shows the final status."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            line = await pane.add(ToolEntry("bash", "sleep 1", "running", call_id="c1"))
            await pilot.pause()
            assert "running" in line.build().columns[2]._cells[0].plain
            pane.replace(line, ToolEntry("bash", "sleep 1", "ok", "exit 0 · 1.0 s", "", "c1"))
            await pilot.pause()
            assert pane.entries[-1].state == "ok" and line._ticker is None

    async def test_first_text_after_a_quiet_spell_is_drawn_at_once(self, monkeypatch):
        """A short reply arriving in one burst shows without waiting out the stream throttle;
        text that follows within the interval waits for it (or for the commit)."""
        from agent_tui.frontends.tui.widgets import chat_items

        monkeypatch.setattr(chat_items, "STREAM_INTERVAL", 600.0)  # the throttle never fires here
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            item = await pane.add(AgentEntry("Fixed "))
            item.append("the **total**.")
            await until(pilot, lambda: item.entry.text == "Fixed the **total**.", what="the burst drawn")
            item.append(" More.")
            await pilot.pause()
            assert item.entry.text == "Fixed the **total**."
            pane.commit(item)
            assert item.entry.text == pane.entries[-1].text == "Fixed the **total**. More."

    async def test_a_running_tool_lines_clock_never_lays_out_the_screen(self):
        """Folded, a running tool line is one row: its clock ticks repaint it, nothing more."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            line = await pane.add(ToolEntry("bash", "sleep 9", "running", call_id="c1"))
            await pilot.pause()
            layouts: list[object] = []
            app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append)
            first = screen_text(app)
            await until(pilot, lambda: screen_text(app) != first, what="the clock ticked")
            assert layouts == [] and line.entry.state == "running"

    async def test_streaming_reply_commits_its_text(self):
        """Deltas appended to a reply end up whole in the entry list."""
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            item = await pane.add(AgentEntry(""))
            for part in ("Hel", "lo ", "**world**"):
                item.append(part)
            pane.commit(item)
            await pilot.pause()
            assert pane.entries[-1] == AgentEntry("Hello **world**")


class TestWorkingLine:
    async def test_its_ticks_never_lay_out_the_screen(self):
        """The working line is one row whatever it says: its ten ticks a second while a reply is
        awaited must not lay out every mounted chat item again."""
        from textual.app import App

        from agent_tui.frontends.tui.widgets.status import WorkingLine

        class LineApp(App):
            CSS = "WorkingLine { height: 1; }"

            def compose(self):
                yield WorkingLine()

        app = LineApp()
        async with app.run_test(size=(80, 10)) as pilot:
            line = app.query_one(WorkingLine)
            line.start("thinking")
            await pilot.pause()
            layouts: list[object] = []
            app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append)
            line.set_state("streaming")
            await pilot.pause()
            assert "streaming" in str(line.render()) and layouts == []
