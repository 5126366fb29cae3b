"""The session picker for /resume: title, age and size of the stored sessions, newest first."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from agent_tui.ui import formatting
from agent_tui.visible_text import visible


@dataclass(frozen=True)
class SessionRow:
    """One stored session as the picker lists it."""

    id: str
    title: str
    """The session's title, or its first prompt when it has none."""
    updated_at: float
    """Unix time of its last message."""
    messages: int
    """Messages in its transcript."""
    tokens: int
    """Tokens of its transcript (what it would cost to resume uncompacted)."""
    model: str | None = None


class ResumeScreen(ModalScreen[str | None]):
    """Dismisses with the chosen session id, or None."""

    BINDINGS: ClassVar = [Binding("escape", "close", "Close")]

    def __init__(self, rows: Sequence[SessionRow], *, now: float | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.rows = list(rows)
        self.now = time.time() if now is None else now

    def compose(self) -> ComposeResult:
        with Vertical(id="resume", classes="dialog"):
            yield Label("Resume a session", classes="dialog-title")
            if not self.rows:
                yield Label("No stored sessions yet.", id="resume-empty")
            table: DataTable[str] = DataTable(id="resume-table", cursor_type="row", zebra_stripes=True)
            yield table
            yield Label("Enter opens · Escape closes", classes="dialog-hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("title", "age", "messages", "tokens", "model")
        for row in self.rows:
            table.add_row(
                visible(row.title[:60], one_line=True) or "(untitled)",  # a stored prompt: shown, not sent
                formatting.age(self.now - row.updated_at),
                formatting.count(row.messages),
                formatting.tokens(row.tokens),
                row.model or "",
                key=row.id,
            )
        table.focus()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_close(self) -> None:
        self.dismiss(None)
