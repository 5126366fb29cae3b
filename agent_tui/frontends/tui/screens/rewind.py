"""/rewind (and Esc Esc on an empty prompt): pick an earlier message of yours, then what goes
back — the conversation, the files, or both — or fork a new tab from just before it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui.screens.deliberate import Deliberate

if TYPE_CHECKING:
    from agent_tui.agent.rewind import RewindPoint

CHOICES = (
    ("both", "Conversation and files: back to before this message"),
    ("conversation", "Conversation only (files stay as they are)"),
    ("files", "Files only (the conversation stays)"),
    ("fork", "Fork: a new tab continuing from before this message"),
)

_CONTROL = {c: " " for c in range(32)} | {127: " "}


def one_line(text: str, width: int = 70) -> str:
    flat = " ".join(text.translate(_CONTROL).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _message_table(table: DataTable[str], points: Sequence[RewindPoint]) -> DataTable[str]:
    """The pickers' list: each message's number (as `sessions show` gives it) and first line."""
    table.add_columns("#", "your message")
    for number, point in enumerate(points):
        table.add_row(
            str(point.seq or point.index + 1), visible(one_line(point.text), one_line=True), key=str(number)
        )
    return table


class RewindScreen(Deliberate, ModalScreen["tuple[RewindPoint, str] | None"]):
    """Dismisses with (the chosen message, `both` / `conversation` / `files` / `fork`), or None.
    What goes back takes a deliberate act (frontends/tui/screens/deliberate.py): an Enter in the first moment
    after the choices appeared, or while typing, chooses nothing; typed text goes to the input."""

    BINDINGS: ClassVar = [Binding("escape", "close", "Close")]
    DEFAULT_CSS = """
    #rewind-table { height: auto; max-height: 12; }
    #rewind-scope { height: auto; display: none; }
    """

    def __init__(self, points: Sequence[RewindPoint]) -> None:
        super().__init__(classes="dialog-screen")
        self.points = list(points)
        self.chosen: RewindPoint | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind", classes="dialog"):
            yield Label("Rewind to before which message?", classes="dialog-title", id="rewind-title")
            yield DataTable(id="rewind-table", cursor_type="row", zebra_stripes=True)
            yield OptionList(*(Option(text, id=key) for key, text in CHOICES), id="rewind-scope")
            yield Label(
                "Enter chooses · Escape closes · the discarded part stays readable and searchable",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        table = _message_table(self.query_one(DataTable), self.points)
        table.move_cursor(row=len(self.points) - 1)
        table.focus()

    @on(DataTable.RowSelected)
    def _message_chosen(self, event: DataTable.RowSelected) -> None:
        self.chosen = self.points[int(str(event.row_key.value))]
        self.query_one(DataTable).display = False
        self.query_one("#rewind-title", Label).update(
            f"Rewind to before: {visible(one_line(self.chosen.text, 60), one_line=True)}"
        )
        scope = self.query_one(OptionList)
        scope.display = True
        scope.highlighted = 0
        scope.focus()
        self.arm_later()

    @on(OptionList.OptionSelected)
    def _scope_chosen(self, event: OptionList.OptionSelected) -> None:
        if not self.armed:
            return  # a second Enter of a double press, or a key of a sentence
        if self.chosen is not None and event.option.id is not None:
            self.dismiss((self.chosen, event.option.id))

    def action_close(self) -> None:
        self.dismiss(None)


NOW: RewindPoint | None = None
"""What ForkScreen dismisses with for its "now" row (the whole conversation)."""


class ForkScreen(ModalScreen["tuple[RewindPoint | None] | None"]):
    """/fork alone: your earlier messages and "now" (where the cursor starts). Dismisses with
    (the chosen message,) or (None,) for now; None when closed."""

    BINDINGS: ClassVar = [Binding("escape", "close", "Close")]
    DEFAULT_CSS = "#fork-table { height: auto; max-height: 12; }"

    def __init__(self, points: Sequence[RewindPoint]) -> None:
        super().__init__(classes="dialog-screen")
        self.points = list(points)

    def compose(self) -> ComposeResult:
        with Vertical(id="fork", classes="dialog"):
            yield Label("Fork a new tab from before which message?", classes="dialog-title")
            yield DataTable(id="fork-table", cursor_type="row", zebra_stripes=True)
            yield Label("Enter forks · Escape closes · this tab stays as it is", classes="dialog-hint")

    def on_mount(self) -> None:
        table = _message_table(self.query_one(DataTable), self.points)
        table.add_row("", "now — the whole conversation", key="now")
        table.move_cursor(row=len(self.points))
        table.focus()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        key = str(event.row_key.value)
        self.dismiss((NOW if key == "now" else self.points[int(key)],))

    def action_close(self) -> None:
        self.dismiss(None)
