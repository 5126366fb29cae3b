"""The /context usage chart: how full the window was after each turn, compactions marked.

A pure function from the compactor's log to Rich text, so it is tested on values. Every fact is
in a glyph, not only a colour: bars are eighth blocks, a compaction is a ▼ on top of its bar,
the auto-compact threshold is a dashed row labelled with its percent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

BLOCKS = " ▁▂▃▄▅▆▇█"
MARK = "▼"
DASH = "╌"
AXIS_WIDTH = 5


@dataclass(frozen=True)
class ChartStyles:
    """Styles of the chart's parts (from the theme, via component classes)."""

    bar: Style = Style()
    compacted: Style = Style(bold=True)
    over: Style = Style(bold=True)
    """Bars at or past the compaction trigger."""
    threshold: Style = Style(dim=True)
    axis: Style = Style(dim=True)


def usage_chart(
    points: Sequence[tuple[int, float, bool]],
    *,
    width: int,
    height: int = 5,
    trigger: float = 0.95,
    styles: ChartStyles | None = None,
) -> Text:
    """`height` rows of bars above an axis: the newest points that fit in `width` columns, each
    up to three columns wide when there are few.

    `points` are (turn, used fraction, compacted) as `Compactor.history_log` keeps them."""
    styles = styles or ChartStyles()
    width = max(1, width)
    per = max(1, min(3, width // max(len(points), 1)))
    shown = list(points)[-(width // per) :]
    levels = [round(min(max(fraction, 0.0), 1.0) * height * 8) for _, fraction, _ in shown]
    trigger_row = min(height - 1, int(trigger * height))
    rows: list[Text] = []
    for row in range(height - 1, -1, -1):  # top row first
        label = {height - 1: "100%", (height - 1) // 2: " 50%"}.get(row, "")
        line = Text(f"{label:>{AXIS_WIDTH - 1}}│", style=styles.axis)
        for index, level in enumerate(levels):
            for sub in range(per):
                line.append(
                    *_cell(
                        shown[index],
                        level,
                        row,
                        height,
                        trigger,
                        trigger_row,
                        index * per + sub,
                        sub == per // 2,
                        styles,
                    )
                )
        if row == trigger_row:
            line.append(f" {trigger * 100:.0f}", styles.threshold)
        rows.append(line)
    first = shown[0][0] if shown else 0
    last = shown[-1][0] if shown else 0
    axis = Text(f"{'0%':>{AXIS_WIDTH - 1}}└" + "─" * (len(levels) * per), style=styles.axis)
    axis.append(f" turn {first}–{last}" if shown and first != last else " turn", style=styles.axis)
    rows.append(axis)
    return Text("\n").join(rows)


def _cell(
    point: tuple[int, float, bool],
    level: int,
    row: int,
    height: int,
    trigger: float,
    trigger_row: int,
    column: int,
    centre: bool,
    styles: ChartStyles,
) -> tuple[str, Style]:
    """One character of one bar: block, compaction mark, threshold dash or blank."""
    _, fraction, compacted = point
    fill = min(max(level - row * 8, 0), 8)
    top = min((level + 7) // 8, height - 1)  # the row the mark goes in: just above the bar
    if compacted and centre and row == top and (fill < 8 or row == height - 1):
        return MARK, styles.compacted
    if fill:
        style = styles.compacted if compacted else (styles.over if fraction >= trigger else styles.bar)
        return BLOCKS[fill], style
    if row == trigger_row:
        return (DASH if column % 2 == 0 else " "), styles.threshold
    return " ", Style()


class UsageChart(Widget):
    """The chart as a widget: as many turns as its width holds, coloured by the theme."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "chart--bar",
        "chart--compacted",
        "chart--over",
        "chart--threshold",
        "chart--axis",
    }
    DEFAULT_CSS = """
    UsageChart { height: 7; }
    UsageChart > .chart--bar { color: $primary; }
    UsageChart > .chart--compacted { color: $warning; text-style: bold; }
    UsageChart > .chart--over { color: $error; }
    UsageChart > .chart--threshold { color: $text-muted; }
    UsageChart > .chart--axis { color: $text-muted; }
    """

    def __init__(
        self,
        points: Sequence[tuple[int, float, bool]],
        *,
        trigger: float,
        height: int = 5,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.points = list(points)
        self.trigger = trigger
        self.rows = height

    def render(self) -> Text:
        if not self.points:
            return Text(
                "No turns measured yet in this run: the chart fills as you work.",
                style=self.get_component_rich_style("chart--axis"),
            )
        style = self.get_component_rich_style
        styles = ChartStyles(
            style("chart--bar"),
            style("chart--compacted"),
            style("chart--over"),
            style("chart--threshold"),
            style("chart--axis"),
        )
        room = max(1, self.size.width - AXIS_WIDTH - 4)
        return usage_chart(self.points, width=room, height=self.rows, trigger=self.trigger, styles=styles)
