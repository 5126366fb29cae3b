"""Where the TUI tells the user the context is high or full, it offers /handoff too (issue 44
item 3: "offered in the 95% notice"): the meter's tooltip from the 80% note on, and the meter's
line while the hard block holds a message back. The compaction line's offer is tested in
tests/test_qa_compaction_line.py."""

from __future__ import annotations

from textual.app import App

from agent_tui.agent import events as ev
from agent_tui.context.budget import ContextBudget
from agent_tui.frontends.tui import tab_ops as op
from agent_tui.frontends.tui.tab_controller import TabController
from agent_tui.frontends.tui.widgets.meter import ContextMeter


def budget(used_fraction: float) -> ContextBudget:
    return ContextBudget(total=100_000, max_output_tokens=0, conversation=round(used_fraction * 100_000))


class MeterApp(App[None]):
    def compose(self):
        yield ContextMeter(id="meter")


async def test_the_meter_tooltip_offers_handoff_from_the_note_on():
    """Below 80% the tooltip is figures only; at 85% and at 96% it offers /handoff [goal]."""
    async with MeterApp().run_test() as pilot:
        meter = pilot.app.query_one(ContextMeter)
        meter.show(budget(0.5))
        assert "/handoff" not in str(meter.tooltip)
        for fraction in (0.85, 0.96):
            meter.show(budget(fraction))
            assert "/handoff [goal] continues in a fresh session" in str(meter.tooltip)


def test_the_hard_block_line_offers_handoff():
    """The meter's line while a message waits for room names /handoff as the way out."""
    ops = TabController().event(ev.Blocked(budget(0.99)))
    lines = [o.text for o in ops if isinstance(o, op.SetActivity) and o.text]
    assert lines and "/handoff" in lines[-1]
