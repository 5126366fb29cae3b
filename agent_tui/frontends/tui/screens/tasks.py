"""/tasks: the tab's background commands — what runs, for how long, how much it printed — with
their live output one key away and a key to stop one.

The list and the output refresh on a timer while the screen is open: a running command has no
event for "a second passed", and its output arrives in its own task (tools/background.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from agent_tui.base.units import human_size
from agent_tui.frontends.tui import formatting

if TYPE_CHECKING:
    from agent_tui.store import Store
    from agent_tui.tools.background import BackgroundShells, Shell

REFRESH = 0.5
"""Seconds between refreshes of the list and of an open output."""
TAIL_LINES = 200
"""Lines of a command's output its live view shows (the newest)."""


_CONTROL = {c: f"^{chr(c + 64)}" for c in range(32) if c not in (9, 10)} | {127: "^?"}


def visible(text: str) -> str:
    """Control characters shown as ^X: a command's output must not drive the terminal."""
    return text.translate(_CONTROL)


def state_text(shell: Shell) -> str:
    return "running" if shell.running else shell.describe_end().split(" after ")[0]


class TasksScreen(ModalScreen[None]):
    """The background commands of one session."""

    BINDINGS: ClassVar = [
        Binding("escape", "close", "Close"),
        Binding("k", "kill", "Kill"),
    ]
    DEFAULT_CSS = """
    #tasks-table { height: auto; max-height: 16; }
    """

    def __init__(self, shells: BackgroundShells, store: Store | None) -> None:
        super().__init__(classes="dialog-screen")
        self.shells = shells
        self.store = store

    def compose(self) -> ComposeResult:
        with Vertical(id="tasks", classes="dialog"):
            yield Label("Background commands", classes="dialog-title")
            yield Label("None started in this session.", id="tasks-empty")
            yield DataTable(id="tasks-table", cursor_type="row", zebra_stripes=True)
            yield Label("Enter shows its output · k kills it · Escape closes", classes="dialog-hint")

    def on_mount(self) -> None:
        table: DataTable[str] = self.query_one(DataTable)
        table.add_columns("id", "state", "elapsed", "output", "command")
        self.refresh_rows()
        table.focus()
        self.set_interval(REFRESH, self.refresh_rows)

    def refresh_rows(self) -> None:
        table: DataTable[str] = self.query_one(DataTable)
        shells = list(self.shells.shells.values())
        self.query_one("#tasks-empty").display = not shells
        row = table.cursor_row
        table.clear()
        for shell in shells:
            table.add_row(
                shell.id,
                state_text(shell),
                formatting.duration(shell.elapsed()),
                human_size(shell.received),
                visible(shell.command)[:60],
                key=shell.id,
            )
        if shells:
            table.move_cursor(row=min(max(row, 0), len(shells) - 1))

    def _selected(self) -> Shell | None:
        table: DataTable[str] = self.query_one(DataTable)
        if not self.shells.shells or table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.shells.shells.get(str(key))

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        shell = self.shells.shells.get(str(event.row_key.value))
        if shell is not None:
            self.app.push_screen(TaskOutputScreen(shell, self.store))

    def action_kill(self) -> None:
        shell = self._selected()
        if shell is not None and shell.running:
            self._kill(shell)

    @work(exit_on_error=False)
    async def _kill(self, shell: Shell) -> None:
        await self.shells.kill(shell.id)
        self.refresh_rows()
        self.app.notify(f"{shell.id} killed; its output stays readable (ref {shell.ref_id}).")

    def action_close(self) -> None:
        self.dismiss(None)


class TaskOutputScreen(ModalScreen[None]):
    """The newest lines of one command's output, following it while it runs."""

    BINDINGS: ClassVar = [Binding("escape", "close", "Close")]
    DEFAULT_CSS = """
    #task-output-scroll { height: auto; max-height: 20; border: solid $panel; }
    """

    def __init__(self, shell: Shell, store: Store | None) -> None:
        super().__init__(classes="dialog-screen")
        self.shell = shell
        self.store = store

    def compose(self) -> ComposeResult:
        with Vertical(id="task-output", classes="dialog"):
            yield Label(f"{self.shell.id} · {visible(self.shell.command)[:70]}", classes="dialog-title")
            with VerticalScroll(id="task-output-scroll"):
                yield Static("", id="task-output-text", markup=False)
            yield Label("", id="task-output-state", classes="dialog-note")
            yield Label("Escape closes · /blobs REF opens the whole output", classes="dialog-hint")

    def on_mount(self) -> None:
        self.load()
        self.set_interval(REFRESH, self.load)

    @work(exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        shell = self.shell
        text = ""
        if shell.ref_id is not None and self.store is not None:
            info = (await self.store.results.resolve(shell.ref_id)).ref  # flushes what arrived
            start = max(1, info.line_count - TAIL_LINES + 1)
            if info.line_count:
                text = "\n".join(
                    await self.store.results.read_lines(info.id, start, TAIL_LINES, max_line_length=400)
                )
        self.query_one("#task-output-text", Static).update(visible(text) or "(no output yet)")
        ref = f" · ref {shell.ref_id}" if shell.ref_id else ""
        self.query_one("#task-output-state", Label).update(
            f"{state_text(shell)} · {formatting.duration(shell.elapsed())} · {human_size(shell.received)}{ref}"
        )
        self.query_one("#task-output-scroll", VerticalScroll).scroll_end(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
