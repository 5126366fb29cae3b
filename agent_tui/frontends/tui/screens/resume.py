"""The session picker for /resume (and `agent-tui -r`): title, age and size of the stored
sessions, newest first, with a search field: typing narrows the list to the sessions whose title
or model holds every word typed, ↑ ↓ move, Enter opens."""

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
from textual.widgets import DataTable, Input, Label

from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui import formatting


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

    BINDINGS: ClassVar = [
        Binding("escape", "close", "Close"),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(self, rows: Sequence[SessionRow], *, now: float | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.rows = list(rows)
        self.now = time.time() if now is None else now

    def compose(self) -> ComposeResult:
        with Vertical(id="resume", classes="dialog"):
            yield Label("Resume a session", classes="dialog-title")
            if not self.rows:
                yield Label("No stored sessions yet.", id="resume-empty")
            yield Input(placeholder="search titles…", id="resume-search")
            table: DataTable[str] = DataTable(id="resume-table", cursor_type="row", zebra_stripes=True)
            yield table
            yield Label("Type to search · ↑ ↓ choose · Enter opens · Escape closes", classes="dialog-hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("title", "age", "messages", "tokens", "model")
        self._fill("")
        self.query_one(Input).focus()

    def matching(self, query: str) -> list[SessionRow]:
        """The rows holding every word of `query` in their title, model or id (any case)."""
        words = query.lower().split()
        return [
            row
            for row in self.rows
            if all(w in f"{row.title} {row.model or ''} {row.id}".lower() for w in words)
        ]

    def _fill(self, query: str) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for row in self.matching(query):
            table.add_row(
                visible(row.title[:60], one_line=True) or "(untitled)",  # a stored prompt: shown, not sent
                formatting.age(self.now - row.updated_at),
                formatting.count(row.messages),
                formatting.tokens(row.tokens),
                row.model or "",
                key=row.id,
            )

    @on(Input.Changed, "#resume-search")
    def _search(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#resume-search")
    def _open_highlighted(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            self.dismiss(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        if step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_close(self) -> None:
        self.dismiss(None)
