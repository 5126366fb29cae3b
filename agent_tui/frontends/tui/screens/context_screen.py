"""/context: what fills the window, how that was measured, how it grew, and what compacting now
would free.

The numbers come from `core/context_report.py` (values read off the session); what each strategy would
free is computed by running the strategies on a copy of the history in a worker, so the modal
opens at once and that part fills in a moment later.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, Static

from agent_tui.base.errors_text import one_line
from agent_tui.context.compaction.strategies import STRATEGIES
from agent_tui.core.context_report import (
    ContextReport,
    build_report,
    compaction_savings,
    recoverable,
)
from agent_tui.frontends.tui import formatting
from agent_tui.frontends.tui.formatting import count
from agent_tui.frontends.tui.screens.dialogs import Dialog, component_table
from agent_tui.frontends.tui.widgets.usage_chart import UsageChart
from agent_tui.llm.cost import format_cost

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.context.budget import ContextBudget

log = logging.getLogger(__name__)


def largest_table(report: ContextReport) -> Table:
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(width=8, no_wrap=True)
    table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column(width=12, no_wrap=True)
    table.add_column(width=8, justify="right", no_wrap=True)
    for item in report.largest:
        table.add_row(
            Text(item.role, style="bold"), Text(item.label), Text(item.ref or "—"), count(item.tokens)
        )
    if not report.largest:
        table.add_row("", Text("(the conversation is empty)"), "", "")
    return table


def savings_table(report: ContextReport, savings: dict[str, int] | None) -> Table | Text:
    if savings is None:
        return Text("running the strategies on a copy of the history…", style="italic")
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(width=13, no_wrap=True)
    table.add_column(width=9, justify="right", no_wrap=True)
    table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    conversation = report.budget.conversation
    for strategy in STRATEGIES:
        label = Text(strategy.label)
        if strategy.name not in report.enabled:
            table.add_row(label, "—", Text("off in [compaction]", style="italic"))
            continue
        freed = savings.get(strategy.name, 0)
        figure = f"−{count(freed)}" if freed else "0"
        note = f"({strategy.cost})"
        if strategy.needs_model and freed:  # an estimate of what the summary would leave
            note = f"→ ~{count(max(conversation - freed, 0))} left ({strategy.cost})"
        table.add_row(label, figure, Text(note))
    return table


def header(report: ContextReport) -> str:
    b = report.budget
    return (
        f"Context · {report.model} · window {count(b.total)} · reserved output "
        f"{count(b.max_output_tokens)} · effective {count(b.effective_window)}"
    )


def footer_lines(report: ContextReport) -> Text:
    b = report.budget
    window = b.effective_window
    marks = " · ".join(
        f"{name} at {share:.0%} ({formatting.tokens(round(share * window))})"
        for name, share in (
            ("note", b.warn_at),
            ("auto-compact", b.compact_trigger),
            ("hard block", b.hard_block),
        )
    )
    cached = f" · cached on the last call {count(b.cached)}" if b.cached else ""
    lines = [
        report.calibration.describe(),
        f"Thresholds: {marks}{cached}",
        (
            f"Session cost: {_cost(report)} · {count(report.prompt_tokens)} prompt + "
            f"{count(report.output_tokens)} output tokens reported in this run"
        ),
    ]
    reasoning = report.reasoning_line()
    if reasoning:
        lines.insert(2, reasoning)
    images = report.images_line()
    if images:
        lines.insert(2, images)
    if report.tools:
        lines.append(report.tools)
    if report.skills:
        lines.append(
            f"Skills loaded (in memories + skills; kept through compaction): {', '.join(report.skills)}"
        )
    if report.children:
        lines.append(report.children)
    lines += [*report.side, *report.compactions]
    return Text("\n".join(lines))


def _cost(report: ContextReport) -> str:
    """No reply yet: nothing spent, said the same way whether the model's prices are known."""
    if not report.prompt_tokens and not report.output_tokens and not report.cost:
        return "none yet"
    return format_cost(report.cost)


class ContextScreen(Dialog):
    """The /context modal over a session; Escape closes it."""

    DEFAULT_CSS = """
    ContextScreen #context {
        width: 116; max-width: 100%; height: auto; max-height: 100%;
        padding: 0 2; border: round $primary; background: $surface;
    }
    ContextScreen .context-row { height: auto; margin-bottom: 1; }
    ContextScreen #context-table { width: 46; }
    ContextScreen #context-chart-box { width: 1fr; height: auto; padding-left: 2; }
    ContextScreen #context-largest-box { width: 1fr; height: auto; }
    ContextScreen #context-savings-box { width: 56; height: auto; padding-left: 2; }
    ContextScreen .context-heading { text-style: bold; }
    ContextScreen #context-body { height: auto; max-height: 1fr; }
    ContextScreen.-narrow #context { height: 100%; }
    ContextScreen.-narrow #context-body { height: 1fr; max-height: 100%; }
    ContextScreen.-narrow .context-row { layout: vertical; }
    ContextScreen.-narrow #context-table { width: 100%; max-width: 60; }
    ContextScreen.-narrow #context-chart-box,
    ContextScreen.-narrow #context-savings-box { width: 100%; padding-left: 0; margin-top: 1; }
    ContextScreen #context-recall { display: none; }
    ContextScreen #context-recall.-shown { display: block; }
    """
    NARROW = 110
    """Below this many columns the sections stack instead of sitting side by side."""

    def __init__(self, session: AgentSession, budget: ContextBudget | None = None) -> None:
        super().__init__()
        self.session = session
        self.report = build_report(session, budget or session.measure())
        self.savings: dict[str, int] | None = None

    def compose(self) -> ComposeResult:
        report = self.report
        with Vertical(id="context"):
            yield Static(Text(header(report)), classes="dialog-title")
            with VerticalScroll(id="context-body"):
                yield from self._sections(report)
            yield Label("Escape closes · ↑↓ scroll", classes="dialog-hint")

    def _sections(self, report: ContextReport) -> ComposeResult:
        with Horizontal(classes="context-row"):
            yield Static(component_table(report.budget, report.images[1]), id="context-table")
            with Vertical(id="context-chart-box"):
                yield Label("Usage per turn (▼ = compaction)", classes="context-heading")
                yield UsageChart(report.turns, trigger=report.budget.compact_trigger, id="context-chart")
        with Horizontal(classes="context-row"):
            with Vertical(id="context-largest-box"):
                yield Label("Largest items", classes="context-heading")
                yield Static(largest_table(report), id="context-largest")
            with Vertical(id="context-savings-box"):
                yield Label(
                    f"If you compact now (target {self.session.config.compaction.target_ratio:.0%})",
                    classes="context-heading",
                )
                yield Static(savings_table(report, None), id="context-savings")
        yield Static(footer_lines(report), id="context-footer")
        yield Static("", id="context-recall")

    def on_mount(self) -> None:
        self._fit()
        self.query_one("#context-body").focus()  # ↑↓ PgUp PgDn scroll the stacked sections
        self.compute_savings()
        self.count_recoverable()

    @work(exclusive=True, group="context-recall", exit_on_error=False)
    async def count_recoverable(self) -> None:
        """How many earlier messages compaction moved out of the window (a store read)."""
        try:
            found = await recoverable(self.session)
        except Exception:
            log.exception("counting the messages outside the window failed")
            return
        if found is not None:
            line = self.query_one("#context-recall", Static)
            line.update(Text(found.describe()))
            line.add_class("-shown")

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        self.set_class(self.size.width < self.NARROW, "-narrow")

    @work(exclusive=True, group="context-savings", exit_on_error=False)
    async def compute_savings(self) -> None:
        try:
            self.savings = await compaction_savings(self.session, self.report.budget)
        except Exception as exc:
            log.exception("estimating compaction savings failed")
            self.query_one("#context-savings", Static).update(
                Text(f"Could not estimate: {one_line(exc, 80)} (see the log file)")
            )
            return
        self.query_one("#context-savings", Static).update(savings_table(self.report, self.savings))
