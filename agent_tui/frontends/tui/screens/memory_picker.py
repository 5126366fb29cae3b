"""The `/memory` chooser: which of the files the agent reads every turn to open in `$EDITOR`.

Claude Code's `/memory` asks which memory file to edit; this is ours, one row per file (the
user's memories, the project's rules) with where it is and how big. Enter opens the highlighted
one, Escape closes without opening anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from agent_tui.frontends.tui.memory_editor import MemoryFile


class MemoryPicker(ModalScreen["MemoryFile | None"]):
    """Dismisses with the chosen file, or None."""

    BINDINGS: ClassVar = [Binding("escape", "close", "Close")]

    def __init__(self, files: list[MemoryFile], editor: str) -> None:
        super().__init__(classes="dialog-screen")
        self.files = files
        self.editor = editor

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Open which file in your editor?", classes="dialog-title")
            yield OptionList(
                *(Option(Text.assemble(f.label, "\n  ", (f.where, "dim")), id=f.key) for f in self.files),
                id="memory-files",
            )
            yield Label(
                f"Enter opens it in {Path(self.editor).name}, read again after · Esc closes",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(next(f for f in self.files if f.key == event.option.id))

    def action_close(self) -> None:
        self.dismiss(None)
