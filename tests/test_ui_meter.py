"""The context meter: bar layout, figures in text, colour state, replaceable updates."""

from __future__ import annotations

from textual.app import App

from agent_tui.context.budget import ContextBudget
from agent_tui.frontends.tui.widgets.meter import ContextMeter, bar_cells, figures, level


def budget(conversation: int, **kw) -> ContextBudget:
    values = dict(
        total=200_000,
        max_output_tokens=8_000,
        system_prompt=3_112,
        skill_prompts=1_840,
        tool_descriptions=9_406,
        conversation=conversation,
    )
    values.update(kw)
    return ContextBudget(**values)


class TestBarLayout:
    def test_bar_fills_exactly_the_width(self):
        """Every width gets exactly that many cells, whatever the figures."""
        for width in (8, 40, 97, 150):
            for conv in (0, 50_000, 190_000, 400_000):
                assert len(bar_cells(budget(conv), width)) == width

    def test_segments_in_order_then_free(self):
        """Components run left to right, free space follows; the reply reserve is not in the bar
        (it is not in the effective window the percent is of)."""
        cells = bar_cells(budget(60_000), 80)
        names = [c.segment for c in cells]
        order = [n for i, n in enumerate(names) if i == 0 or names[i - 1] != n]
        assert order == ["system", "memory", "tools", "conversation", "free"]

    def test_bar_and_percent_agree(self):
        """`31% 1.9k/6.1k` drew a bar ~26% full: the filled share now matches the percent."""
        b = ContextBudget(total=8_192, max_output_tokens=2_048, system_prompt=600, conversation=1_300)
        cells = bar_cells(b, 100)
        filled = sum(1 for c in cells if c.segment != "free")
        assert figures(b).startswith("31% ")
        assert abs(filled - 31) <= 1

    def test_small_component_still_visible(self):
        """A non-empty component gets at least one cell even when it rounds to zero."""
        cells = bar_cells(budget(10, skill_prompts=5), 40)
        assert any(c.segment == "memory" for c in cells)

    def test_three_threshold_marks(self):
        """Marks fall at 80, 95 and 98% of the effective window."""
        cells = bar_cells(budget(1_000), 200)
        marks = [i for i, c in enumerate(cells) if c.mark]
        assert len(marks) == 3
        assert marks[0] == round(0.80 * len(cells))

    def test_overflow_does_not_widen_the_bar(self):
        """A conversation past the window fills the bar but never breaks its width."""
        cells = bar_cells(budget(500_000), 60)
        assert len(cells) == 60
        assert not any(c.segment == "free" for c in cells)


class TestFigures:
    def test_percent_and_counts_in_text(self):
        """The text names percent, used and effective window, like `61% 117k/192k`."""
        b = budget(102_851)
        assert figures(b).startswith(f"{b.used_fraction:.0%} 117k/192k")

    def test_state_named_in_words(self):
        """Past 80% the text says `high`, past 95% `full`: colour is never the only signal."""
        assert "high" in figures(budget(150_000))
        assert "full" in figures(budget(180_000))
        assert "high" not in figures(budget(50_000)) and "full" not in figures(budget(50_000))

    def test_levels(self):
        """Warning from 80%, error from 95%."""
        b = budget(0)
        assert level(0.79, b) == "ok" and level(0.80, b) == "warning" and level(0.95, b) == "error"

    def test_estimate_marked(self):
        """While streaming, the figure is marked as an estimate and includes streamed tokens."""
        b = budget(100_000)
        text = figures(b, 4_000, estimate=True)
        assert text.startswith("~") and f"{(b.used + 4_000) / b.effective_window:.0%}" in text

    def test_cached_shown(self):
        """Prompt tokens served from cache are named."""
        assert "cached 84k" in figures(budget(100_000, cached=84_000))


class MeterApp(App):
    def compose(self):
        yield ContextMeter(id="meter")


class TestMeterWidget:
    async def test_renders_bar_and_legend(self):
        """The widget shows the figures and a legend with every component's tokens."""
        app = MeterApp()
        async with app.run_test(size=(120, 6)) as pilot:
            meter = app.query_one(ContextMeter)
            meter.show(budget(102_851))
            await pilot.pause()
            text = meter.render().plain
            assert "117k/192k" in text
            for label in ("sys 3.1k", "mem 1.8k", "tools 9.4k", "conv 103k", "reply 8k"):
                assert label in text

    async def test_updates_replace_queued_ones(self):
        """A newer Update replaces an older one still in the queue."""
        first = ContextMeter.Update(budget(1))
        second = ContextMeter.Update(budget(2))
        assert second.can_replace(first)
        assert not ContextMeter.Activity("x").can_replace(first)

    async def test_activity_replaces_legend(self):
        """While compacting, the second line shows the running strategy."""
        app = MeterApp()
        async with app.run_test(size=(120, 6)) as pilot:
            meter = app.query_one(ContextMeter)
            meter.show(budget(150_000))
            meter.post_message(ContextMeter.Activity("compacting · tool clearing → summary…"))
            await pilot.pause()
            assert "compacting · tool clearing → summary…" in meter.render().plain
            meter.set_activity(None)
            assert "compacting" not in meter.render().plain
