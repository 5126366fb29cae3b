"""The first-launch question in an untrusted folder: "Do you trust the files in this folder?"

Shown only when the folder's `.agent-tui.toml` holds keys that trusting would enable, or its
`.claude/settings*.json` holds hooks; it lists exactly those (allow rules, MCP servers and hooks
with the commands they run, model / api_base…). `t`
trusts (recorded in the user's config dir until the file changes), `n` or Escape goes on without.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class TrustScreen(ModalScreen[bool]):
    BINDINGS: ClassVar = [
        Binding("t", "trust", "Trust"),
        Binding("n", "not_now", "Not now"),
        Binding("escape", "not_now", "Not now", show=False),
    ]

    def __init__(self, folder: Path, enables: tuple[str, ...], changed: bool = False) -> None:
        super().__init__(classes="dialog-screen")
        self.folder = folder
        self.enables = enables
        self.changed = changed

    def compose(self) -> ComposeResult:
        why = "changed since you trusted it" if self.changed else "is not trusted yet"
        with Vertical(id="trust", classes="dialog"):
            yield Label(Text("Do you trust the files in this folder?"), classes="dialog-title")
            # .claude/ settings hold hooks (commands) too: the list names which file each came from.
            yield Static(Text(f"{self.folder}\nThis folder {why}. Trusting it would enable:"))
            with VerticalScroll(id="trust-list"):
                yield Static(Text("\n".join(f"  • {item}" for item in self.enables)))
            yield Static(
                Text(
                    "Not now: these stay ignored for this launch; harmless settings still apply.",
                    style="dim",
                )
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Trust (t)", id="trust-yes", variant="warning")
                yield Button("Not now (n)", id="trust-no", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "trust-yes")

    def action_trust(self) -> None:
        self.dismiss(True)

    def action_not_now(self) -> None:
        self.dismiss(False)
