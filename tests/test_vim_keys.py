"""Issue 45 #6: vim keys in the input (`[ui] editing_mode = "vim"`) — insert and normal mode,
motions, `x`, `dd`, `.`, counts, the mode shown under the input; Enter still sends. The real
app driven by Pilot; an 80×24 snapshot with the mode shown."""

from __future__ import annotations

from testkit.fake_openai import Reply
from tests.support import snapshots
from tests.support.agent_fixtures import make_config
from tests.support.snapshots import ready, resumed_app
from tests.support.ui_helpers import make_app, settle, until

fixed_workspace = snapshots.fixed_workspace
sandbox_off = snapshots.sandbox_off  # autouse


def vim_app(server, workspace, tmp_path, mode: str = "vim"):
    config = make_config(server, tmp_path / "v.db", cwd=workspace, ui={"editing_mode": mode})
    return make_app(config, workspace)


def mode_shown(app) -> str:
    from textual.widgets import Static

    label = app.query_one("#editing-mode", Static)
    return str(label.render()) if label.display else ""


async def ready_vim(pilot) -> None:
    await settle(pilot)
    await until(pilot, lambda: pilot.app.view.prompt.vim is not None, what="vim keys on")
    pilot.app.view.prompt.focus()


class TestVim:
    async def test_normal_mode_edits_and_repeats(self, server, workspace, tmp_path):
        app = vim_app(server, workspace, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await ready_vim(pilot)
            prompt = app.view.prompt
            assert mode_shown(app) == "-- INSERT --"
            await pilot.press(*"abcdef")
            await pilot.press("escape")
            assert mode_shown(app) == "-- NORMAL --" and prompt.text == "abcdef"
            await pilot.press("0", "x")  # delete the first character
            assert prompt.text == "bcdef"
            await pilot.press(".")  # again
            assert prompt.text == "cdef"
            await pilot.press("2", "x")  # a count
            assert prompt.text == "ef"
            await pilot.press("h", "h", "a", *"Z", "escape")  # h moves, a appends after the cursor
            assert prompt.text == "eZf"
            await pilot.press("A", *"!!", "escape", "o", *"two", "escape")
            assert prompt.text == "eZf!!\ntwo"
            await pilot.press("d", "d")  # the line
            assert prompt.text == "eZf!!"
            await pilot.press("u")  # undo brings it back
            assert prompt.text == "eZf!!\ntwo"

    async def test_typing_in_normal_mode_never_types(self, server, workspace, tmp_path):
        app = vim_app(server, workspace, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await ready_vim(pilot)
            await pilot.press("escape", *"qzv")
            assert app.view.prompt.text == ""

    async def test_enter_sends_in_normal_mode(self, server, workspace, tmp_path):
        server.enqueue(Reply(text="hi"))
        app = vim_app(server, workspace, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await ready_vim(pilot)
            await pilot.press(*"hello", "escape", "enter")
            await until(pilot, lambda: server.requests, what="the send")
        assert "hello" in str(server.requests[0]["messages"][-1]["content"])

    async def test_default_mode_has_no_vim(self, server, workspace, tmp_path):
        app = vim_app(server, workspace, tmp_path, mode="default")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape", "x")
            assert app.view.prompt.vim is None and app.view.prompt.text == "x" and mode_shown(app) == ""


def test_vim_mode_snapshot(snap_compare, server, tmp_path, fixed_workspace):
    """80×24: normal mode shown under the input."""
    config = make_config(server, tmp_path / "s.db", ui={"editing_mode": "vim"})
    app = resumed_app(config, fixed_workspace)

    async def run_before(pilot):
        await ready(pilot)
        await ready_vim(pilot)
        await pilot.press(*"fix the tests", "escape", "b")
        await pilot.pause()

    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))
