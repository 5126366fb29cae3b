"""A chat turn redraws the screen a handful of times, however long the chat: each frame at turn
30 repaints the whole scrolled pane, so a frame nobody needed delays the reply the user waits
for (issue 42: ~22 refreshes a turn, most of them the tab strip's underline sliding 0.3 s at
60 frames a second each time the busy mark `⋯` came and went on the tab's label)."""

from __future__ import annotations

from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle

FRAMES_PER_TURN = 14
"""The user's message, the working line's clock while the model thinks (10 a second), the reply,
the end of the turn (the busy mark goes, the underline follows it), room for a scrollbar or a
trim: 7 on a quiet machine. The clock's ticks grow with the machine's load (10 seen with the
suite running beside it), so the bound is set below what one underline slide alone draws (~18
frames in 0.3 s): before issue 42's fix a turn like this one drew 24."""


def count_frames(screen) -> list[int]:
    """A counter of the screen's compositor refreshes (each one a frame written to the terminal).
    Textual's private `Screen._compositor_refresh`: a Textual that renames it fails here."""
    frames = [0]
    refresh = screen._compositor_refresh

    def counted() -> None:
        frames[0] += 1
        refresh()

    screen._compositor_refresh = counted
    return frames


class TestFramesPerTurn:
    async def test_a_turn_at_turn_30_draws_a_bounded_number_of_frames(self, server, tmp_path, workspace):
        """Counted from Enter to the end of every animation the turn started."""
        # A model takes a moment: the turn outlasts the 20 ms before Textual starts a slide.
        server.responder = lambda body: Reply(text="Fixed the **total** for the cart.", delay=0.1)
        app = make_app(make_config(server, tmp_path / "f.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            for turn in range(1, 30):
                await send(pilot, f"question {turn}")
                await settle(pilot)
            await pilot.wait_for_scheduled_animations()
            frames = count_frames(app.screen)
            await send(pilot, "question 30")
            await settle(pilot)
            await pilot.wait_for_scheduled_animations()
            assert "question 30" in screen_text(app)
            assert frames[0] <= FRAMES_PER_TURN, f"{frames[0]} frames for one turn"

    async def test_the_busy_mark_still_shows_and_the_underline_follows_the_label(
        self, server, tmp_path, workspace
    ):
        """The label changes width without the slide: the underline spans the active tab's new
        label once the turn is over."""
        from textual.widgets import Tabs

        server.responder = lambda body: Reply(text="done")
        app = make_app(make_config(server, tmp_path / "u.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "rename the cart module")
            await settle(pilot)
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            tabs = app.query_one(Tabs)
            tab = tabs.active_tab
            assert tab is not None and "rename the cart" in tab.label.plain
            underline = tabs.query_one("Underline")
            start, end = tab.virtual_region.shrink(tab.styles.gutter).column_span
            assert (underline.highlight_start, underline.highlight_end) == (start, end)
