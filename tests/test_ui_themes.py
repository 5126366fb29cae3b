"""Themes: the shipped pair is legible, user theme files load from the config dir, a bad one is
a notice and a fallback, and the theme can be switched while the app runs."""

from __future__ import annotations

import pytest
from textual.color import Color

from agent_tui.frontends.tui import themes
from agent_tui.frontends.tui.textual_compat import notifications
from agent_tui.runtime import paths
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, settle, until

SIZE = (120, 36)


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "themes.db")


def user_themes():
    folder = paths.config_dir() / "themes"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class TestShippedThemes:
    @pytest.mark.parametrize("name", [themes.DEFAULT_DARK, themes.DEFAULT_LIGHT])
    def test_legible(self, name):
        """Text, muted text and the status colours read on the theme's backgrounds (WCAG)."""
        theme = {t.name: t for t in themes.load_themes([themes.BUILTIN_DIR]).themes}[name]
        assert themes.legibility_problems(theme) == []
        background = Color.parse(theme.to_color_system().generate()["background"])
        for status in ("error", "warning", "success", "primary"):
            colour = themes.theme_colour(theme, status, background)
            assert themes.contrast_ratio(colour, background) >= 4.5, status

    def test_contrast_ratio(self):
        """Black on white is 21:1, a colour on itself 1:1."""
        assert round(themes.contrast_ratio(Color(0, 0, 0), Color(255, 255, 255)), 1) == 21.0
        assert themes.contrast_ratio(Color(90, 90, 90), Color(90, 90, 90)) == 1.0


class TestThemeFiles:
    def test_bad_variable_colour_is_refused(self, tmp_path):
        """A [variables] value that is not a colour skips the file (it would break the
        stylesheet on first paint)."""
        (tmp_path / "odd.toml").write_text(
            "name = 'odd'\nprimary = '#112233'\n[variables]\nmeter-system = 'banana'\n"
        )
        loaded = themes.load_themes([tmp_path])
        assert loaded.themes == ()
        assert "meter-system" in loaded.problems[0] and "not a colour" in loaded.problems[0]

    def test_illegible_theme_loads_with_a_notice(self, tmp_path):
        """Grey on grey still loads (it is the user's choice) but says it is hard to read."""
        (tmp_path / "fog.toml").write_text(
            "name = 'fog'\nprimary = '#777777'\nforeground = '#8a8a8a'\n"
            "background = '#808080'\nsurface = '#808080'\npanel = '#808080'\n"
        )
        loaded = themes.load_themes([tmp_path])
        assert [t.name for t in loaded.themes] == ["fog"]
        assert any("foreground on background" in p and "hard to read" in p for p in loaded.problems)

    def test_pick_theme(self):
        """A known name is used; an unknown one falls back and names the choices."""
        available = {"agent-dark": 1, "agent-light": 1, "textual-dark": 1}
        assert themes.pick_theme("agent-light", available) == ("agent-light", None)
        name, notice = themes.pick_theme("solarised", available)
        assert name == "agent-dark"
        assert "Unknown theme 'solarised'" in notice and "agent-light" in notice
        assert "textual-dark" not in notice


class TestThemesInTheApp:
    async def test_user_theme_file_and_ui_theme(self, config, workspace):
        """A theme file in <config>/themes is registered; [ui] theme selects it at start."""
        (user_themes() / "mine.toml").write_text(
            "name = 'mine'\ndark = true\nprimary = '#ff8800'\nbackground = '#101010'\n"
        )
        app = make_app(config, workspace, theme_name="mine")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.theme == "mine" and "mine" in app.available_themes
            assert not [n for n in notifications(app) if n.severity != "information"]

    async def test_bad_theme_file_is_a_notice_not_a_crash(self, config, workspace):
        """A broken user theme is skipped with a warning; a theme name nobody provides falls
        back to agent-dark with a warning; the app runs."""
        (user_themes() / "broken.toml").write_text("name = 'broken'\nprimary = 12\n")
        app = make_app(config, workspace, theme_name="broken")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.is_running and app.theme == themes.DEFAULT_DARK
            warnings = [n.message for n in notifications(app) if n.severity == "warning"]
            assert any("Theme skipped" in w and "broken.toml" in w for w in warnings)
            assert any("Unknown theme 'broken'" in w for w in warnings)


class TestSwitching:
    async def test_theme_command_switches_and_lists(self, config, workspace):
        """/theme agent-light switches at once; /theme alone lists the themes; an unknown
        name is a warning and leaves the theme as it was."""
        from tests.support.ui_session_fixtures import send

        app = make_app(config, workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await send(pilot, "/theme agent-light")
            assert app.theme == "agent-light" and app.current_theme.dark is False
            await send(pilot, "/theme")
            await until(pilot, lambda: "Themes:" in printed(app), what="the /theme block")
            assert "Theme: agent-light\nThemes: agent-dark, agent-light" in printed(app)
            await send(pilot, "/theme neon")
            assert app.theme == "agent-light"
            assert any(
                "Unknown theme 'neon'; using agent-light" in n.message
                for n in notifications(app)
                if n.severity == "warning"
            )

    async def test_palette_offers_each_theme_file(self, config, workspace):
        """The command palette has a `Theme: NAME` entry per theme file, and `Blobs`."""
        app = make_app(config, workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            commands = {c.title: c for c in app.get_system_commands(app.screen)}
            assert {"Theme: agent-dark", "Theme: agent-light", "Blobs"} <= set(commands)
            commands["Theme: agent-light"].callback()
            await pilot.pause()
            assert app.theme == "agent-light"
