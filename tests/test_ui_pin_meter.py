"""Pins have their own segment on the meter, with the pin budget beside it, and their own row in
/context's table (issue 44 item 1: "pins have a budget, shown on the meter")."""

from __future__ import annotations

import pytest

from agent_tui.context.budget import ContextBudget
from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.widgets.meter import ContextMeter, bar_cells
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


def test_pins_are_a_segment_of_the_bar_before_the_conversation():
    budget = ContextBudget(
        total=10_000, max_output_tokens=0, system_prompt=1_000, pins=1_000, conversation=2_000
    )
    segments = [cell.segment for cell in bar_cells(budget, 10)]
    assert segments[:4] == ["system", "pins", "conversation", "conversation"]
    assert budget.used == 4_000 and budget.fixed == 2_000 and budget.components()["pins"] == 1_000


async def test_a_pin_shows_on_the_meter_with_its_budget_and_in_context(config, workspace):
    """`/pin TEXT`: the meter's legend names the pins' tokens of the budget, its tooltip too, and
    /context's table has a pins row; before any pin the legend has no pins entry."""
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        meter = app.query_one(ContextMeter)
        assert " pins " not in meter.render().plain
        await send(pilot, "/pin never touch the migrations folder")
        await settle(pilot)
        tokens = app.view.session.side.state.pin_tokens()
        await until(
            pilot, lambda: meter.budget is not None and meter.budget.pins > 0, what="the pins segment"
        )
        assert "pins" in meter.render().plain and "/2k" in meter.render().plain
        assert "of 2 000 budget" in str(meter.tooltip)
        await send(pilot, "/context")
        await until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
        table = str(app.screen.query_one("#context-table").render())
        assert tokens > 0 and "pins" in screen_text(app)
        assert "pins (of 2 000)" in screen_text(app), table
