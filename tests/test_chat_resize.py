"""A resize keeps the reading place: what is at the top of the chat stays at the top after the
terminal is resized (the replies reflow, so the same scroll offset would land elsewhere).

The chat counts the resizes after which it put the place back on a settled layout
(`places_kept`); the tests wait for that count, then check where the view is, with no sleeps.
Where the view is, is measured in rows between the top of the view and the reply's first row."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest

from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until

SIZES = ((70, 24), (100, 30), (80, 24), (120, 36))


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def long_session(config, workspace, turns: int = 30, words: int = 60):
    """A stored session whose long replies change height with the width, opened in the app."""
    from agent_tui.base.messages import assistant, user
    from agent_tui.compose.factory import build_services

    services = await build_services(config, workspace=workspace)
    info = await services.store.sessions.create(str(workspace), config.model.name, title="long")
    history = []
    for i in range(turns):
        history += [user(f"question {i}"), assistant(f"answer {i}" + " lorem ipsum" * words)]
    await services.store.sessions.append(info.id, history)
    await services.close()
    return make_app(config, workspace, session_id=info.id)


def reply(chat, n: int):
    """The mounted widget of `answer n`."""
    return next(item for item in chat._items if getattr(item.entry, "text", "").startswith(f"answer {n} "))


def rows_to(chat, item) -> float:
    """Rows from the top of the view down to the item's first row (negative: the view starts
    inside the item)."""
    return item.virtual_region.y - chat.scroll_y


async def everything_mounted(pilot, chat) -> None:
    """Home, as the user presses it: every entry mounted and the view at the very top."""
    await chat.jump_top()
    await until(pilot, lambda: chat.unmounted_count == 0 and chat.scroll_y == 0, what="the top")


@asynccontextmanager
async def reading_a_reply(config, workspace):
    """The long session open at 120x36 with every entry mounted: the pilot, the chat and the
    widget of `answer 20`, a reply in the middle."""
    app = await long_session(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        chat = app.view.chat
        await everything_mounted(pilot, chat)
        yield pilot, chat, reply(chat, 20)


async def resize(pilot, chat, size: tuple[int, int]) -> None:
    """Resize the terminal and wait until the chat has put the place back."""
    kept = chat.places_kept
    await pilot.resize_terminal(*size)
    try:  # a cap, not a margin: 60 replies rewrap at the new width, slow on a loaded machine
        await until(pilot, lambda: chat.places_kept > kept, timeout=30, what=f"the place kept at {size}")
    except AssertionError as timeout:  # what the chat was doing, should the wait ever run out
        raise AssertionError(
            f"{timeout}: following={chat._following} anchor={chat._read_anchor} "
            f"keeping={chat._keeping_place} round={chat._place_round}"
        ) from None
    assert chat.size.width < size[0]


class TestResize:
    async def test_a_reply_at_the_top_stays_at_the_top(self, config, workspace):
        """Narrower, shorter, then wider again: after each resize the same reply starts on the
        view's first row, and it stays there over the following refreshes."""
        async with reading_a_reply(config, workspace) as (pilot, chat, item):
            chat.scroll_to(y=item.virtual_region.y, animate=False, immediate=True)
            assert rows_to(chat, item) == 0
            for size in SIZES:
                await resize(pilot, chat, size)
                assert rows_to(chat, item) == 0, size
                for _ in range(3):
                    await pilot.pause()
                    assert rows_to(chat, item) == 0, size

    async def test_the_blank_row_above_a_reply_stays_at_the_top(self, config, workspace):
        """The view starting on the blank row above a reply keeps that one row: the gap is rows,
        not a share of the reply's height (scaled, it put the view most of a line into the
        question above once the reply wrapped to twice its height)."""
        async with reading_a_reply(config, workspace) as (pilot, chat, item):
            chat.scroll_to(y=item.virtual_region.y - 1, animate=False, immediate=True)
            assert rows_to(chat, item) == 1
            for size in SIZES:
                await resize(pilot, chat, size)
                assert rows_to(chat, item) == 1, size

    async def test_halfway_through_a_reply_stays_halfway(self, config, workspace):
        """A view starting inside a reply starts the same share of the way into it after the
        reply reflows (to within the row the share rounds to)."""
        async with reading_a_reply(config, workspace) as (pilot, chat, item):
            region = item.virtual_region
            chat.scroll_to(y=region.y + region.height // 2, animate=False, immediate=True)
            share = -rows_to(chat, item) / region.height
            assert 0 < share < 1
            for size in SIZES:
                await resize(pilot, chat, size)
                height = item.virtual_region.height
                assert abs(-rows_to(chat, item) - share * height) <= 1, (size, rows_to(chat, item), height)

    async def test_a_resize_while_older_entries_mount_keeps_the_place(self, config, workspace):
        """Near the top of what is drawn (older entries mounting above in batches), a resize
        keeps the blank row above the second entry drawn at the top once the batches stop."""
        app = await long_session(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            chat = app.view.chat
            assert chat.unmounted_count > 0
            item = chat._items[1]
            assert item.entry.text.startswith("answer ")
            chat.scroll_to(y=item.virtual_region.y - 1, animate=False, immediate=True)  # starts the batches
            assert rows_to(chat, item) == 1
            await resize(pilot, chat, (70, 24))

            def done() -> bool:
                return chat.unmounted_count == 0 or chat.scroll_y > chat.size.height

            await until(pilot, done, what="the batches to stop")
            for _ in range(3):
                await pilot.pause()
                assert rows_to(chat, item) == 1
