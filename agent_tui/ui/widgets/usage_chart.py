"""The /context usage chart: how full the window was after each turn, compactions marked.

A pure function from the compactor's log to Rich text, so it is tested on values. Every fact is
in a glyph, not only a colour: bars are eighth blocks, a compaction is a ▼ on top of its bar,
the auto-compact threshold is a dashed row labelled with its percent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

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


def usage_chart(points: Sequence[tuple[int, float, bool]], *, width: int, height: int = 5,
                trigger: float = 0.95, styles: ChartStyles | None = None) -> Text:
    """`height` rows of bars (one column per point, the newest `width` of them) above an axis.

    `points` are (turn, used fraction, compacted) as `Compactor.history_log` keeps them."""
    styles = styles or ChartStyles()
    shown = list(points)[-max(1, width):]
    levels = [round(min(max(fraction, 0.0), 1.0) * height * 8) for _, fraction, _ in shown]
    trigger_row = min(height - 1, int(trigger * height))
    rows: list[Text] = []
    for row in range(height - 1, -1, -1):  # top row first
        label = {height - 1: "100%", (height - 1) // 2: " 50%"}.get(row, "")
        line = Text(f"{label:>{AXIS_WIDTH - 1}}│", style=styles.axis)
        for column, level in enumerate(levels):
            _, fraction, compacted = shown[column]
            fill = min(max(level - row * 8, 0), 8)
            top = (level + 7) // 8  # the first row above the bar
            if compacted and (row == min(top, height - 1) and fill < 8 or
                              row == height - 1 and fill == 8):
                line.append(MARK, styles.compacted)
            elif fill:
                style = styles.compacted if compacted else (
                    styles.over if fraction >= trigger else styles.bar)
                line.append(BLOCKS[fill], style)
            elif row == trigger_row:
                line.append(DASH if column % 2 == 0 else " ", styles.threshold)
            else:
                line.append(" ")
        if row == trigger_row:
            line.append(f" {trigger * 100:.0f}", styles.threshold)
        rows.append(line)
    first = shown[0][0] if shown else 0
    last = shown[-1][0] if shown else 0
    axis = Text(f"{'0%':>{AXIS_WIDTH - 1}}└" + "─" * len(levels), style=styles.axis)
    axis.append(f" turn {first}–{last}" if shown and first != last else " turn",
                style=styles.axis)
    rows.append(axis)
    return Text("\n").join(rows)


class UsageChart(Widget):
    """The chart as a widget: as many turns as its width holds, coloured by the theme."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "chart--bar", "chart--compacted", "chart--over", "chart--threshold", "chart--axis",
    }
    DEFAULT_CSS = """
    UsageChart { height: 7; }
    UsageChart > .chart--bar { color: $primary; }
    UsageChart > .chart--compacted { color: $warning; text-style: bold; }
    UsageChart > .chart--over { color: $error; }
    UsageChart > .chart--threshold { color: $text-muted; }
    UsageChart > .chart--axis { color: $text-muted; }
    """

    def __init__(self, points: Sequence[tuple[int, float, bool]], *, trigger: float,
                 height: int = 5, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points = list(points)
        self.trigger = trigger
        self.rows = height

    def render(self) -> Text:
        if not self.points:
            return Text("No turns measured yet in this run: the chart fills as you work.",
                        style=self.get_component_rich_style("chart--axis"))
        style = self.get_component_rich_style
        styles = ChartStyles(style("chart--bar"), style("chart--compacted"), style("chart--over"),
                             style("chart--threshold"), style("chart--axis"))
        room = max(1, self.size.width - AXIS_WIDTH - 4)
        return usage_chart(self.points, width=room, height=self.rows, trigger=self.trigger,
                           styles=styles)
