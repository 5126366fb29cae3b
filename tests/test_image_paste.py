"""Pasting an image's path into the prompt (what a terminal's drag and drop types: quoted, with
`\\ ` escapes or as a `file://` URL) attaches the picture as `@shot.png` does, also from outside
the workspace: a path the user pastes is consent, for image files only (issue 32)."""

from __future__ import annotations

import base64
import threading
from pathlib import Path

import pytest
from textual import events

from agent_tui.frontends.tui.image_paste import pasted_paths
from agent_tui.frontends.tui.widgets.chat_items import UserItem
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.images import image_urls, png
from tests.support.ui_helpers import make_app, notices, screen_text, settle, until


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A folder outside the workspace, as ~/Pictures is."""
    folder = tmp_path / "Pictures"
    folder.mkdir()
    return folder


async def paste(pilot, text: str) -> None:
    app = pilot.app
    app.view.prompt.focus()
    app.post_message(events.Paste(text))
    await pilot.pause()


class TestPastedPaths:
    def test_what_terminals_type_for_a_dropped_file(self, tmp_path):
        """Quoted, backslash-escaped and file:// forms all name the same file; several files too."""
        shot = tmp_path / "My Shot.png"
        other = tmp_path / "b.png"
        for text in (
            f"'{shot}' ",
            str(shot).replace(" ", "\\ "),
            f'"{shot}"',
            "file://" + str(shot).replace(" ", "%20"),
            f"  {str(shot).replace(' ', chr(92) + ' ')}\n",
        ):
            assert pasted_paths(text) == [shot], text
        assert pasted_paths(f"'{shot}' '{other}'") == [shot, other]
        assert pasted_paths(f"file://{shot.as_uri()[7:]}\nfile://{other}") == [shot, other]

    def test_prose_is_not_a_path(self):
        """Ordinary text, relative words and unbalanced quotes are not taken for paths."""
        for text in ("hello world", "fix the bug", "it's broken", "shot.png", "", "   "):
            assert pasted_paths(text) is None, text


class TestPasteAnImagePath:
    async def test_a_dropped_picture_outside_the_workspace_goes_to_the_model(
        self, server, config, workspace, elsewhere
    ):
        """Dropping `~/Pictures/My Shot.png` types its quoted path: the input shows a chip, the
        request carries the picture, and the chat shows it under the message."""
        data = png(32, 16)
        (elsewhere / "My Shot.png").write_bytes(data)
        server.enqueue(Reply(text="a grey strip"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            await pilot.press(*"what is ")
            await paste(pilot, f"'{elsewhere / 'My Shot.png'}' ")
            await until(pilot, lambda: "[image" in prompt.text, what="the chip")
            assert prompt.text == "what is [image My Shot.png #1] "
            await pilot.press("enter")
            await settle(pilot)
            sent = server.requests[-1]["messages"][-1]
            assert image_urls(sent) == ["data:image/png;base64," + base64.b64encode(data).decode()]
            assert sent["content"][0] == {"type": "text", "text": "what is [image My Shot.png #1] "}
            assert app.query_one(UserItem).entry.chips == (f"[image My Shot.png {len(data)} B]",)

    async def test_two_dropped_pictures_and_an_escaped_path(self, server, config, workspace, elsewhere):
        """Two files dropped at once (one with `\\ ` escapes) are two chips and two image parts."""
        (elsewhere / "a b.png").write_bytes(png(8, 8))
        (elsewhere / "c.png").write_bytes(png(4, 4))
        server.enqueue(Reply(text="two squares"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            escaped = str(elsewhere / "a b.png").replace(" ", "\\ ")
            await paste(pilot, f"{escaped} {elsewhere / 'c.png'}")
            await until(pilot, lambda: "[image" in prompt.text, what="the chips")
            assert prompt.text == "[image a b.png #1] [image c.png #2]"
            await pilot.press(*" compare")
            await pilot.press("enter")
            await settle(pilot)
            assert len(image_urls(server.requests[-1]["messages"][-1])) == 2

    async def test_a_path_to_a_text_file_is_pasted_as_text(self, server, config, workspace, elsewhere):
        """A pasted path of a file that is not a picture stays text; nothing of it is attached."""
        (elsewhere / "notes.txt").write_text("secret notes\n")
        server.enqueue(Reply(text="ok"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            path = str(elsewhere / "notes.txt")
            await paste(pilot, path)
            await until(pilot, lambda: prompt.text, what="the paste")
            assert prompt.text == path
            await pilot.press("enter")
            await settle(pilot)
            sent = server.requests[-1]["messages"][-1]
            assert sent["content"] == path
            assert "secret notes" not in str(server.requests[-1])

    async def test_a_picture_over_the_cap_is_refused_in_one_line_and_the_text_kept(
        self, config, workspace, elsewhere
    ):
        """A pasted path of a 6 MB picture: one notice, and the path stays in the input as text."""
        (elsewhere / "big.png").write_bytes(png(8, 8, pad=6 * 1024 * 1024))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            path = str(elsewhere / "big.png")
            await paste(pilot, path)
            await until(pilot, lambda: prompt.text, what="the paste")
            assert prompt.text == path
            assert "big.png: not attached (6.0 MB image; the limit is 5 MB)" in notices(app)

    async def test_a_picture_queued_while_busy_goes_with_its_own_message(
        self, server, config, workspace, elsewhere
    ):
        """A message with a pasted picture sent while a turn runs is queued; the picture goes with
        that message, not with the one before it."""
        (elsewhere / "q.png").write_bytes(png(8, 8))
        hold = threading.Event()
        server.enqueue(Reply(text="first", hold=hold), Reply(text="second"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"one", "enter")
            await until(pilot, lambda: app.view.busy, what="the turn")
            await paste(pilot, str(elsewhere / "q.png"))
            await until(pilot, lambda: "[image" in prompt.text, what="the chip")
            await pilot.press("enter")
            await until(pilot, lambda: prompt.text == "", what="the message queued")
            hold.set()
            await settle(pilot)
            first, second = (r["messages"][-1] for r in server.requests[:2])
            assert image_urls(first) == [] and len(image_urls(second)) == 1
            assert "[image q.png" in screen_text(app)


class TestWhatIsNotRead:
    async def test_a_pasted_fifo_or_folder_is_text_and_nothing_waits_on_it(
        self, config, workspace, elsewhere
    ):
        """Only a regular file is opened: a named pipe (which would block a read) and a folder,
        even named like pictures, are pasted as the text they are."""
        import os

        os.mkfifo(elsewhere / "pipe.png")
        (elsewhere / "folder.png").mkdir()
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            for name in ("pipe.png", "folder.png"):
                prompt.set_text("")
                await paste(pilot, str(elsewhere / name))
                await until(pilot, lambda: prompt.text, what="the paste")
                assert prompt.text == str(elsewhere / name)
            assert not prompt.images.held


class TestDropWhileTheChatHasFocus:
    async def test_a_drop_on_a_focused_tool_line_reaches_the_input(
        self, server, config, workspace, elsewhere
    ):
        """A file dropped while a tool line had focus went to the tool line and was lost: the
        paste (a picture's path here) lands in the input as a chip, and the input has focus."""
        from agent_tui.frontends.tui.widgets.prompt import PromptInput
        from tests.support.focus import focus_a_tool_line

        (elsewhere / "d.png").write_bytes(png(8, 8))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await focus_a_tool_line(pilot, server, workspace)
            app.post_message(events.Paste(f"'{elsewhere / 'd.png'}' "))
            await until(pilot, lambda: "[image" in app.view.prompt.text, what="the chip")
            assert app.view.prompt.text == "[image d.png #1] "
            assert isinstance(app.focused, PromptInput)


class TestTextOnlyModel:
    async def test_a_pasted_picture_on_a_text_only_model_gets_one_notice(
        self, workspace, tmp_path, elsewhere
    ):
        """On a model litellm lists without vision the pasted picture is not sent: one notice,
        no image part, no picture chip under the message."""
        from testkit.fake_openai import FakeOpenAI

        (elsewhere / "t.png").write_bytes(png(8, 8))
        with FakeOpenAI(window=32_000, model_name="gpt-3.5-turbo") as srv:
            srv.enqueue(Reply(text="ok"))
            config = make_config(srv, tmp_path / "t.db", model={"name": "openai/gpt-3.5-turbo"})
            app = make_app(config, workspace)
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                prompt = app.view.prompt
                await paste(pilot, str(elsewhere / "t.png"))
                await until(pilot, lambda: "[image" in prompt.text, what="the chip")
                await pilot.press("enter")
                await settle(pilot)
                assert image_urls(srv.requests[-1]["messages"][-1]) == []
                assert app.query_one(UserItem).entry.chips == ()
                assert "t.png: not sent — openai/gpt-3.5-turbo does not accept images" in screen_text(app)


class TestBroughtBack:
    async def test_up_brings_back_a_message_with_its_picture(self, server, config, workspace, elsewhere):
        """A sent message with a pasted picture, brought back with Up and sent again, carries
        the picture again (the chip still stands for it)."""
        (elsewhere / "u.png").write_bytes(png(8, 8))
        server.enqueue(Reply(text="one"), Reply(text="two"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            await paste(pilot, str(elsewhere / "u.png"))
            await until(pilot, lambda: "[image" in prompt.text, what="the chip")
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("up")
            assert prompt.text == "[image u.png #1]"
            await pilot.press("enter")
            await settle(pilot)
            assert [len(image_urls(r["messages"][-1])) for r in server.requests] == [1, 1]
