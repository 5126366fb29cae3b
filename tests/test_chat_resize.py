"""A resize keeps the reading place: the message at the top of the chat stays at the top after
the terminal is resized (the replies reflow, so the same scroll offset would land elsewhere).
The chat says when it has restored the place after the layout settled; the test waits for that
and then checks that the place holds, with no sleeps."""

from __future__ import annotations

import pytest

from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def long_session(config, workspace, turns: int = 30, words: int = 60):
    """A stored session whose long replies change height with the width, opened in the app."""
    from agent_tui.factory import build_services
    from agent_tui.messages import assistant, user

    services = await build_services(config, workspace=workspace)
    info = await services.store.sessions.create(str(workspace), config.model.name, title="long")
    history = []
    for i in range(turns):
        history += [user(f"question {i}"), assistant(f"answer {i}" + " lorem ipsum" * words)]
    await services.store.sessions.append(info.id, history)
    await services.close()
    return make_app(config, workspace, session_id=info.id)


class TestResize:
    async def test_a_resize_keeps_the_reading_place(self, config, workspace):
        """Narrower, shorter, then wider again: after each resize the same reply is at the top,
        and it stays there over the following refreshes."""
        app = await long_session(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            chat = app.view.chat
            index = next(
                i for i, e in enumerate(chat.entries) if getattr(e, "text", "").startswith("answer 20")
            )
            item = await chat.reveal(index)
            assert item is not None
            await until(pilot, lambda: chat.mounted_count >= len(chat.entries) - index, what="older mounted")
            await pilot.pause()
            chat.scroll_to(y=item.virtual_region.y, animate=False, immediate=True)

            def at_top() -> bool:
                top = chat.top_item()
                return top is not None and top[0] is item

            await until(pilot, at_top, what="the reply at the top")
            for size in ((70, 24), (100, 30), (80, 24), (120, 36)):
                kept = chat.places_kept
                await pilot.resize_terminal(*size)
                await until(
                    pilot, lambda kept=kept: chat.places_kept > kept, what=f"the place kept at {size}"
                )
                assert chat.size.width < size[0] and at_top(), (size, chat.top_item(), item)
                for _ in range(3):
                    await pilot.pause()
                    assert at_top(), size
