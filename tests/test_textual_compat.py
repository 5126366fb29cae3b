"""The private Textual API agent-tui relies on still exists and still does what we build on.

A Textual upgrade that renames or reshapes any of it fails here, by name, rather than as a
traceback on a user's terminal or a confusing failure deep in the UI tests.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
from importlib.metadata import version

from textual.app import App
from textual.screen import Screen
from textual.widgets import Footer, Static

from agent_tui.frontends.tui.textual_compat import PRIVATE_API, notifications, screen_text


class TestPrivateTextualApi:
    async def test_every_private_name_exists(self):
        """Each private name in PRIVATE_API is still on a running app and its screen."""
        app = App[None]()
        async with app.run_test(size=(40, 5)):
            instances = {App: app, Screen: app.screen, Footer: Footer()}
            missing = [
                f"{cls.__name__}.{name}"
                for cls, names in PRIVATE_API.items()
                for name in names
                if not hasattr(instances[cls], name)
            ]
            assert hasattr(getattr(app.screen, "_compositor", None), "render_strips")
        assert not missing, f"Textual {version('textual')} removed private API we use: {missing}"

    def test_the_leaking_style_cache_is_still_there_to_empty(self):
        """release_render_caches empties StylesCache.get_inner_outer (Textualize/textual#6665);
        a Textual that moves or fixes it fails here, and the workaround can go."""
        from textual._styles_cache import StylesCache

        from agent_tui.frontends.tui.textual_compat import release_render_caches

        assert callable(getattr(StylesCache.get_inner_outer, "cache_clear", None))
        release_render_caches()
        assert StylesCache.get_inner_outer.cache_info().currsize == 0

    def test_crash_hooks_keep_their_signatures(self):
        """The two overridden hooks take the arguments our overrides expect."""
        assert list(inspect.signature(App._handle_exception).parameters) == ["self", "error"]
        assert list(inspect.signature(App._fatal_error).parameters) == ["self"]
        assert "renderables" in inspect.signature(App.panic).parameters

    async def test_screen_text_and_notifications_read_the_app(self):
        """The test readers see what is drawn and what was notified."""

        class Shown(App[None]):
            def compose(self):
                yield Static("hello from the screen")

        app = Shown()
        async with app.run_test(size=(40, 5)) as pilot:
            app.notify("a notice")
            await pilot.pause()
            assert "hello from the screen" in screen_text(app)
            assert [n.message for n in notifications(app)] == ["a notice"]


CRASHING_APP = textwrap.dedent(
    """
    import logging, sys
    from agent_tui.frontends.tui.textual_compat import OneLineCrashes
    logging.basicConfig(filename=sys.argv[1], level=logging.ERROR)

    class Crashes(OneLineCrashes[None]):
        TITLE = "crash-test"
        def crash_line(self):
            return "ONE LINE: see the log"
        def on_mount(self):
            raise ValueError("boom in on_mount")

    app = Crashes()
    app.run(headless=True)
    sys.exit(app.return_code)
    """
)


class TestOneLineCrashes:
    def test_crash_prints_one_line_and_logs_the_traceback(self, tmp_path):
        """An unexpected exception: exit code 1, one line on the terminal, the traceback logged."""
        log = tmp_path / "crash.log"
        done = subprocess.run(
            [sys.executable, "-c", CRASHING_APP, str(log)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "TERM": "xterm-256color"},
        )
        terminal = done.stdout + done.stderr
        assert done.returncode == 1, terminal
        assert "ONE LINE: see the log" in terminal
        assert "Traceback" not in terminal and "boom in on_mount" not in terminal
        logged = log.read_text()
        assert "crash-test crashed" in logged and "ValueError: boom in on_mount" in logged
