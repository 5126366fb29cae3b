"""Ctrl+V in the prompt attaches a picture from the system clipboard, read with `wl-paste` or
`xclip` (fake scripts on PATH here, answering as the real tools do), and says in one line when
no clipboard tool or no picture is there (issue 32)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent_tui.frontends.tui.widgets.chat_items import UserItem
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.images import image_urls, png
from tests.support.ui_helpers import make_app, notices, settle, until


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


@pytest.fixture
def bin_dir(tmp_path, monkeypatch) -> Path:
    """A PATH holding only the fake clipboard tools a test writes (no real one can answer)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    return folder


def tool(folder: Path, name: str, body: str) -> None:
    script = folder / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)


def wl_paste(folder: Path, types: str, picture: Path | None = None) -> None:
    """`wl-paste --list-types` prints `types`; `wl-paste --type T` writes the picture."""
    send = f'/bin/cat "{picture}"' if picture else "exit 1"
    tool(
        folder,
        "wl-paste",
        f'if [ "$1" = "--list-types" ]; then printf "{types}"; exit 0; fi\n{send}\n',
    )


async def ctrl_v(pilot) -> None:
    pilot.app.view.prompt.focus()
    await pilot.press("ctrl+v")
    await settle(pilot)


class TestClipboardPicture:
    async def test_ctrl_v_attaches_the_clipboard_picture(
        self, server, config, workspace, tmp_path, bin_dir, monkeypatch
    ):
        """On Wayland, Ctrl+V reads the PNG `wl-paste` offers: a chip in the input, the picture
        in the request, a chip under the message in the chat."""
        data = png(24, 12)
        (tmp_path / "clip.png").write_bytes(data)
        wl_paste(bin_dir, "text/html\\nimage/png\\n", tmp_path / "clip.png")
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
        server.enqueue(Reply(text="a small grey box"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            await pilot.press(*"look: ")
            await ctrl_v(pilot)
            assert prompt.text == "look: [image clipboard.png #1]"
            await pilot.press("enter")
            await settle(pilot)
            sent = server.requests[-1]["messages"][-1]
            assert image_urls(sent) == ["data:image/png;base64," + base64.b64encode(data).decode()]
            assert app.query_one(UserItem).entry.chips == (f"[image clipboard.png {len(data)} B]",)

    async def test_xclip_with_text_only_says_there_is_no_picture(
        self, config, workspace, bin_dir, monkeypatch
    ):
        """On X11 with only text copied: one line says the clipboard holds no picture; the
        input is unchanged."""
        tool(
            bin_dir,
            "xclip",
            'case "$*" in *TARGETS*) printf "TARGETS\\nUTF8_STRING\\ntext/plain\\n";; *) exit 1;; esac\n',
        )
        monkeypatch.setenv("DISPLAY", ":0")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await pilot.press(*"hi")
            await ctrl_v(pilot)
            await until(pilot, lambda: "Ctrl+V" in notices(app), what="the notice")
            assert "Ctrl+V: no picture on the clipboard (it holds text)" in notices(app)
            assert app.view.prompt.text == "hi"

    async def test_no_clipboard_tool_is_said(self, config, workspace, bin_dir):
        """With neither wl-paste nor xclip installed, Ctrl+V says what to install."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await ctrl_v(pilot)
            await until(pilot, lambda: "Ctrl+V" in notices(app), what="the notice")
            line = next(n for n in notices(app).splitlines() if "Ctrl+V" in n)
            assert "no clipboard tool" in line and "wl-clipboard" in line and "xclip" in line
            assert app.view.prompt.text == ""

    async def test_a_failing_tool_is_said_in_its_own_words(self, config, workspace, bin_dir, monkeypatch):
        """xclip that cannot reach the display: its error line is the notice, not a traceback."""
        tool(bin_dir, "xclip", 'echo "Error: Can\'t open display: :9" >&2\nexit 1\n')
        monkeypatch.setenv("DISPLAY", ":9")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await ctrl_v(pilot)
            await until(pilot, lambda: "Ctrl+V" in notices(app), what="the notice")
            assert "Ctrl+V: xclip: Error: Can't open display: :9" in notices(app)


class TestWhatTheToolsSay:
    async def test_a_bmp_only_clipboard_names_what_it_holds(self, tmp_path, bin_dir, monkeypatch):
        """A clipboard offering only image/bmp: the line says so and which formats are taken."""
        from agent_tui.frontends.tui.clipboard_image import read_picture

        wl_paste(bin_dir, "image/bmp\\n")
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
        got = await read_picture()
        assert got.data is None
        assert (
            got.why
            == "Ctrl+V: no picture on the clipboard (it holds image/bmp; only PNG, JPEG, GIF or WebP are attached)"
        )

    async def test_the_display_s_tool_answers_first_then_another_has_the_picture(
        self, tmp_path, bin_dir, monkeypatch
    ):
        """On Wayland, wl-paste's "Nothing is copied" does not stop an installed xclip that holds
        a JPEG (an X11 app's clipboard under XWayland); the JPEG is named as such."""
        from agent_tui.frontends.tui.clipboard_image import read_picture
        from tests.support.images import jpeg

        (tmp_path / "c.jpg").write_bytes(jpeg(10, 10))
        tool(bin_dir, "wl-paste", 'echo "Nothing is copied" >&2\nexit 1\n')
        tool(
            bin_dir,
            "xclip",
            f'case "$*" in *TARGETS*) printf "TARGETS\\nimage/jpeg\\n";; *image/jpeg*) /bin/cat "{tmp_path / "c.jpg"}";; *) exit 1;; esac\n',
        )
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
        got = await read_picture()
        assert got.data == jpeg(10, 10) and got.name == "clipboard.jpg"
        tool(bin_dir, "xclip", "exit 1\n")
        got = await read_picture()
        assert got.data is None and got.why == "Ctrl+V: wl-paste: Nothing is copied"

    async def test_macos_osascript_prints_the_png_as_applescript_data(self, tmp_path, bin_dir):
        """Without wl-paste or xclip, the built-in osascript's `«data PNGf…»` print is the PNG;
        its failure (no picture: error -1700) reads as no picture on the clipboard."""
        from agent_tui.frontends.tui.clipboard_image import read_picture

        data = png(6, 6)
        tool(bin_dir, "osascript", f'printf "«data PNGf{data.hex().upper()}»\\n"\n')
        got = await read_picture()
        assert got.data == data and got.name == "clipboard.png"
        tool(
            bin_dir,
            "osascript",
            'echo "execution error: Can\'t make some data into the expected type. (-1700)" >&2\nexit 1\n',
        )
        got = await read_picture()
        assert got.data is None and got.why == "Ctrl+V: no picture on the clipboard"


async def test_ctrl_v_on_a_focused_tool_line_reaches_the_input(
    server, config, workspace, tmp_path, bin_dir, monkeypatch
):
    """Ctrl+V while a tool line has focus attaches the clipboard's picture to the input."""
    from agent_tui.frontends.tui.widgets.prompt import PromptInput
    from tests.support.focus import focus_a_tool_line

    (tmp_path / "clip.png").write_bytes(png(4, 4))
    wl_paste(bin_dir, "image/png\\n", tmp_path / "clip.png")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await focus_a_tool_line(pilot, server, workspace)
        await pilot.press("ctrl+v")
        await settle(pilot)
        assert app.view.prompt.text == "[image clipboard.png #1]"
        assert isinstance(app.focused, PromptInput)
