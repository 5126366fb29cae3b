"""Small modals: help (keys, commands, log file), confirmation; and the component table that
/context (screens/context_screen.py) shows."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from agent_tui.frontends.tui import formatting, slash
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.context.budget import ContextBudget

KEYS = (
    ("Enter", "send (queued while a turn runs)"),
    ("Shift+Enter / Ctrl+J", "new line"),
    ("Up / Down", "history (on the first / last line)"),
    ("Escape", "interrupt the running turn (or close a screen, a menu)"),
    ("Ctrl+C", "cancel the running turn; twice within 2 s quits"),
    ("Escape Escape", "on an empty input: rewind to an earlier message (/rewind)"),
    ("Ctrl+B", "send the running bash command to the background (/tasks)"),
    ("!command", "run a command yourself; the next turn's model sees its output"),
    ("Ctrl+L", "clear the whole input (Up brings it back)"),
    ("Ctrl+V", "attach the clipboard's picture (a dropped image file's path attaches it too)"),
    ("Tab", "complete a command, an @file or a path (never leaves the input)"),
    ("Ctrl+T / Ctrl+W", "new tab / close tab"),
    ("Ctrl+PgUp / Ctrl+PgDn", "previous / next tab"),
    ("Ctrl+P", "command palette"),
    ("PgUp / PgDn", "scroll the chat"),
    ("Home / End", "first / last message (on an empty input; Ctrl+Home / Ctrl+End always)"),
    ("Ctrl+F", "find in the chat (Enter / Down older match, Up newer, Escape closes)"),
    ("Shift+Tab, then Enter", "reach a tool line and unfold it (or click it)"),
    ("Ctrl+O (on a tool line)", "open its whole output in the blob browser"),
    ("F1", "this help"),
)


class Dialog(ModalScreen[object]):
    """A modal that Escape closes."""

    BINDINGS: ClassVar = [Binding("escape", "close", "Close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def action_close(self) -> None:
        self.dismiss(None)


class HelpScreen(Dialog):
    def __init__(self, sandbox: str | None = None, extensions: str | None = None) -> None:
        super().__init__()
        self.extensions = extensions
        """Hooks, custom commands and skills with their files (frontends/tui/custom_commands.py)."""
        self.sandbox = sandbox
        """What the command sandbox allows (shown under the commands), when it is known."""

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold", no_wrap=True, min_width=max(len(k) for k, _ in KEYS))
        keys.add_column()
        for key, what in KEYS:
            keys.add_row(Text(key), Text(what))
        commands = Table.grid(padding=(0, 2))
        commands.add_column(
            style="bold", no_wrap=True, min_width=max(len(c.usage) for c in slash.all_commands())
        )
        commands.add_column()
        for command in slash.all_commands():
            commands.add_row(Text(command.usage), Text(command.help))
        with Vertical(id="help", classes="dialog"):
            yield Label("agent-tui help", classes="dialog-title")
            # The log path first: it must stay in view however long the command list grows.
            yield Static(
                Text.assemble(
                    "Log file: ",
                    (str(paths.log_file()), "bold"),
                    " — errors show as one line; details are there.",
                ),
                id="help-log",
            )
            with VerticalScroll():
                yield Static(Text("\nKeys", style="bold underline"))
                yield Static(keys)
                yield Static(Text("\nCommands", style="bold underline"))
                yield Static(commands)
                if self.extensions:
                    yield Static(Text("\nHooks, custom commands, skills", style="bold underline"))
                    yield Static(Text(self.extensions), id="help-extensions")
                if self.sandbox:
                    yield Static(Text("\nSandbox", style="bold underline"))
                    yield Static(Text(self.sandbox), id="help-sandbox")
            yield Label("Escape closes", classes="dialog-hint")


class ConfirmScreen(Dialog):
    """Yes / no; dismisses with True or False."""

    BINDINGS: ClassVar = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog confirm"):
            yield Label(Text(self.question))
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text("[y] Yes"), id="yes", variant="error")
                yield Button(Text("[n] No"), id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


def component_table(budget: ContextBudget, images: int = 0) -> Table:
    """The /context table: tokens and share of the effective window per component."""
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=True)
    table.add_column("component")
    table.add_column("tokens", justify="right")
    table.add_column("share", justify="right")
    effective = budget.effective_window
    rows = [
        ("system prompt", budget.system_prompt),
        ("memories + skills", budget.skill_prompts),
        ("tool descriptions", budget.tool_descriptions),
        *([(f"pins (of {formatting.count(budget.pin_budget)})", budget.pins)] if budget.pins else []),
        ("conversation", budget.conversation),
        ("free", max(budget.remaining, 0)),
    ]
    if images:  # part of the conversation: shown under it
        rows.insert(rows.index(("conversation", budget.conversation)) + 1, ("  of it images", images))
    for name, tokens in rows:
        table.add_row(name, formatting.count(tokens), f"{tokens / effective:.1%}")
    table.add_section()
    table.add_row("used", formatting.count(budget.used), f"{budget.used_fraction:.1%}", style="bold")
    return table
