"""A key typed with a long session open costs the prompt's repaint and nothing else.

The TUI benchmark times key → next refresh with 2 000 messages loaded (benchmarks/tui.py); its
p95 is the third-slowest of 37 keys, so a few batches of older entries mounted while paging, or a
collection of the heap, move it by 2× from one run to the next (wave 4 measured 10.7 → 24.5 ms and
found the same work per key in both trees). What would make it slower for real is work each key
adds: a meter, status line or tab label that re-renders per keystroke, a watcher that lays the
screen out again and with it every mounted chat item. That work is counted here, not timed.
"""

from __future__ import annotations

from agent_tui.frontends.tui.widgets.chat_items import ChatItem
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import settle
from tests.support.ui_session_fixtures import markdown_chat_app

TYPED = "fix the flaky test"


class TestTypingCostsThePromptAlone:
    async def test_keys_in_the_prompt_lay_out_nothing_and_repaint_only_the_prompt(
        self, server, tmp_path, workspace
    ):
        """Textual's private `Screen._refresh_layout` and `_compositor.update_widgets` (the
        widgets a frame repaints): a Textual that renames them fails here."""
        app = await markdown_chat_app(make_config(server, tmp_path / "k.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            chat = app.view.chat
            assert chat.unmounted_count > 0 and chat.mounted_count > 0
            app.view.prompt.focus()
            await pilot.press("x", "backspace")  # the first key's own work (the turn's warm-up) goes first
            await settle(pilot)
            await pilot.wait_for_scheduled_animations()
            screen = app.screen
            layouts = [0]
            repainted: list[object] = []
            refresh_layout = screen._refresh_layout
            update_widgets = screen._compositor.update_widgets

            def counted_layout(*args, **kwargs):
                layouts[0] += 1
                return refresh_layout(*args, **kwargs)

            def recorded_update(widgets):
                repainted.extend(widgets)
                return update_widgets(widgets)

            screen._refresh_layout = counted_layout
            screen._compositor.update_widgets = recorded_update
            try:
                for key in TYPED:
                    await pilot.press("space" if key == " " else key)
                await pilot.pause()
            finally:
                del screen._refresh_layout, screen._compositor.update_widgets
            assert app.view.prompt.text == TYPED
            assert layouts[0] == 0, f"{layouts[0]} layouts for {len(TYPED)} keys"
            assert repainted, "no frame repainted the prompt"
            others = {type(w).__name__ for w in repainted if not isinstance(w, PromptInput)}
            assert not others, f"typing repainted {sorted(others)}"
            assert not any(isinstance(w, ChatItem) for w in repainted)
