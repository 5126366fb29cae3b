"""Found by trying the TUI as a new user (issue 32, QA lane): without a model at 80 × 24 the
panel kept the input on screen but cut its own text after the first way of setting a model;
the rest scrolled with the mouse only, and no scroll bar said so."""

from __future__ import annotations

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.status import LOCAL_EXAMPLE
from tests.support.ui_helpers import make_app, screen_text, settle


def inside(widget, rows: int) -> bool:
    region = widget.region
    return region.height > 0 and region.y >= 0 and region.bottom <= rows


class TestNoModelPanelFits:
    async def test_every_way_to_set_a_model_shows_at_80x24(self, tmp_path, workspace, monkeypatch):
        """The three ways, down to the local server's command line, are on an 80 × 24 screen."""
        monkeypatch.setenv("HOME", str(tmp_path))  # the config file reads `~/…`, as for a user
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}},
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            text = " ".join(screen_text(app).split())
            assert "[model] name" in text
            assert " ".join(LOCAL_EXAMPLE.split()[:3]) in text, text

    @pytest.mark.parametrize("rows", [20, 24])
    async def test_the_input_and_meter_stay_on_screen(self, tmp_path, workspace, rows):
        """A taller panel still leaves the meter and the input on screen."""
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}},
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        app = make_app(config, workspace)
        async with app.run_test(size=(80, rows)) as pilot:
            await settle(pilot)
            assert inside(app.view.prompt, rows)
            assert inside(app.query_one(ContextMeter), rows)
