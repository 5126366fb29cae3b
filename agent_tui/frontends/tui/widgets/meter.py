"""The context meter: one bar, a segment per component, threshold marks, and the figures in text.

The bar is the effective window (the window less the reply reserve), the same whole the percent
is of, so a bar a third full reads 33%: system prompt, memories and skills, tool descriptions and
the conversation from the left, marks where 80/95/98% fall. The reply reserve is in the legend. The percent and counts are always printed, and the state is named in
words (`high`, `full`), so nothing depends on colour. Updates arrive as `Update` messages that a
newer one replaces while queued, so a fast stream never backs up the message queue.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.widget import Widget

from agent_tui.frontends.tui import formatting
from agent_tui.frontends.tui.compaction_line import HANDOFF_OFFER
from agent_tui.frontends.tui.widgets.chat_items import spinner_frame
from agent_tui.llm.cost import format_cost

if TYPE_CHECKING:
    from textual.timer import Timer

    from agent_tui.context.budget import ContextBudget

SEGMENTS = (
    ("system", "system_prompt", "sys"),
    ("memory", "skill_prompts", "mem"),
    ("tools", "tool_descriptions", "tools"),
    ("pins", "pins", "pins"),
    ("conversation", "conversation", "conv"),
)
GLYPHS = {"free": "░", "reserved": "▒"}


@dataclass(frozen=True)
class Cell:
    """One character of the bar."""

    segment: str
    """system / memory / tools / conversation / free / reserved."""
    mark: bool = False
    """A threshold falls on this cell."""


def bar_cells(budget: ContextBudget, width: int) -> list[Cell]:
    """Lay the budget out on `width` cells of the effective window (any non-empty component
    gets at least one)."""
    room = max(width, 8)
    effective = budget.effective_window
    cells: list[Cell] = []
    for segment, attribute, _label in SEGMENTS:
        tokens = getattr(budget, attribute)
        if tokens <= 0:
            continue
        share = max(1, round(tokens / effective * room))
        cells += [Cell(segment)] * min(share, room - len(cells))
    cells += [Cell("free")] * (room - len(cells))
    for fraction in (budget.warn_at, budget.compact_trigger, budget.hard_block):
        at = min(room - 1, round(fraction * room))
        cells[at] = Cell(cells[at].segment, mark=True)
    return cells


def level(fraction: float, budget: ContextBudget) -> str:
    """ok / warning / error, the meter's colour state."""
    if fraction >= budget.compact_trigger:
        return "error"
    if fraction >= budget.warn_at:
        return "warning"
    return "ok"


ESTIMATE_NOTE = "~ an estimate while the reply streams: exact once the provider reports the prompt's size"
"""What the `~` before the percent means (the tooltip says it; the legend names it when it fits)."""


def figures(budget: ContextBudget, extra: int = 0, *, estimate: bool = False) -> str:
    """`61% 117k/192k` (with `~` while the figure is an estimate) plus the state word."""
    used = budget.used + extra
    fraction = used / budget.effective_window
    state = {"ok": "", "warning": " high", "error": " full"}[level(fraction, budget)]
    approx = "~" if estimate else ""
    text = (
        f"{approx}{fraction:.0%} {formatting.tokens(used)}/"
        f"{formatting.tokens(budget.effective_window)}{state}"
    )
    if budget.cached:
        text += f"  cached {formatting.tokens(budget.cached)}"
    return text


class ContextMeter(Widget):
    """Two lines: the bar with its figures, then the legend (or compaction progress)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "meter--system",
        "meter--memory",
        "meter--tools",
        "meter--pins",
        "meter--conversation",
        "meter--free",
        "meter--reserved",
        "meter--mark",
        "meter--warning",
        "meter--error",
        "meter--label",
    }

    @dataclass
    class Update(Message):
        """New figures for the meter; a queued one is replaced by a newer one."""

        budget: ContextBudget | None
        extra: int = 0
        """Tokens streamed since the budget was measured (estimated)."""
        estimate: bool = False

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ContextMeter.Update)

    @dataclass
    class Activity(Message):
        """Compaction progress for the second line (None when it is over)."""

        text: str | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.budget: ContextBudget | None = None
        self.extra = 0
        self.estimate = False
        self.activity: str | None = None
        self.placeholder = "no session yet"
        self.cost_line: str | None = None
        """`cost $0.0123 last reply · $0.41 session` (or unknown), for the tooltip."""
        self._ticker: Timer | None = None

    def on_context_meter_update(self, message: Update) -> None:
        message.stop()
        self.show(message.budget, message.extra, estimate=message.estimate)

    def on_context_meter_activity(self, message: Activity) -> None:
        message.stop()
        self.set_activity(message.text)

    def show(self, budget: ContextBudget | None, extra: int = 0, *, estimate: bool = False) -> None:
        self.budget, self.extra, self.estimate = budget, extra, estimate
        if budget is not None:
            exact = self._exact(budget)
            if budget.cached:
                exact += f"\n{'cached':<6} {formatting.count(budget.cached):>9} read from cache"
            self.tooltip = (
                exact
                + (f"\n{self.cost_line}" if self.cost_line else "")
                + (f"\n{ESTIMATE_NOTE}" if estimate else "")
            )
            if level(budget.used_fraction, budget) != "ok":  # high or full: the way out
                self.tooltip += f"\n{HANDOFF_OFFER}"
        self.refresh()

    def set_cost(self, reply: float | None, session: float | None) -> None:

        self.cost_line = f"cost   {format_cost(reply)} last reply · {format_cost(session)} session"
        self.show(self.budget, self.extra, estimate=self.estimate)

    def set_activity(self, text: str | None) -> None:
        self.activity = text
        if text and self._ticker is None:
            self._ticker = self.set_interval(0.1, self.refresh)
        elif not text and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.refresh()

    @staticmethod
    def _exact(budget: ContextBudget) -> str:
        rows = [
            f"{label:<6} {formatting.count(getattr(budget, attribute)):>9}"
            for _segment, attribute, label in SEGMENTS
        ]
        if budget.pin_budget:
            rows[3] += f" of {formatting.count(budget.pin_budget)} budget"
        rows.append(f"{'used':<6} {formatting.count(budget.used):>9}")
        rows.append(f"{'window':<6} {formatting.count(budget.effective_window):>9} effective")
        rows.append(f"{'reply':<6} {formatting.count(budget.max_output_tokens):>9} reserved")
        return "\n".join(rows)

    def render(self) -> Text:
        style = self.get_component_rich_style
        label = style("meter--label")
        if self.budget is None:
            return Text.assemble(("ctx ", label), self.placeholder)
        budget = self.budget
        used = budget.used + self.extra
        state = level(used / budget.effective_window, budget)
        right = figures(budget, self.extra, estimate=self.estimate)
        width = max(8, self.size.width - len(right) - 6)
        line = Text("ctx ", style=label)
        for cell in bar_cells(_grown(budget, self.extra), width):
            segment_style = style(f"meter--{cell.segment}")
            if cell.segment == "conversation" and state != "ok":
                segment_style = style(f"meter--{state}")
            if cell.mark:
                line.append("│", style=style("meter--mark") + _as_background(segment_style))
            else:
                line.append(GLYPHS.get(cell.segment, "█"), style=segment_style)
        line.append("  ")
        line.append(right, style=style(f"meter--{state}") if state != "ok" else "")
        return Text("\n").join([line, self._second_line()])

    def _second_line(self) -> Text:
        style = self.get_component_rich_style
        if self.activity:
            return Text.assemble("    ", (f"{spinner_frame()} {self.activity}", style("meter--warning")))
        budget = self.budget
        if budget is None:
            return Text("")
        legend = Text("    ")
        for segment, attribute, name in SEGMENTS:
            tokens = getattr(budget, attribute) + (self.extra if segment == "conversation" else 0)
            if segment == "pins" and not tokens:
                continue  # no pins: the legend stays as it was
            figure = formatting.tokens(tokens)
            if segment == "pins" and budget.pin_budget:
                figure += f"/{formatting.tokens(budget.pin_budget)}"
            legend.append("█", style=style(f"meter--{segment}"))
            legend.append(f" {name} {figure}  ")
        legend.append(GLYPHS["reserved"], style=style("meter--reserved"))
        legend.append(f" reply {formatting.tokens(budget.max_output_tokens)}  ")
        marks = " ".join(
            f"{round(f * 100)}" for f in (budget.warn_at, budget.compact_trigger, budget.hard_block)
        )
        # Without the word `marks` when space is short: at 80 columns the 98 fell off the end.
        label = f"│ marks {marks}%" if legend.cell_len + 20 <= self.content_size.width else f"│ {marks}%"
        legend.append(label, style=style("meter--label"))
        if self.estimate and legend.cell_len + 14 <= self.content_size.width:
            legend.append("  ~ estimate", style=style("meter--label"))  # the `~` of the figures
        return legend


def _grown(budget: ContextBudget, extra: int) -> ContextBudget:
    if not extra:
        return budget
    return replace(budget, conversation=budget.conversation + extra)


def _as_background(style: Style) -> Style:
    """The segment's colour behind a mark, so a mark over a used cell stays visible."""
    return Style(bgcolor=style.color) if style.color else Style()
