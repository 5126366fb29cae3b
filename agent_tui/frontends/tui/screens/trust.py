"""The first-launch question in an untrusted folder: "Do you trust the files in this folder?"

Shown only when the folder's `.agent-tui.toml` holds keys that trusting would enable, or its
`.claude/settings*.json` holds hooks; it lists exactly those (allow rules, MCP servers and hooks
with the commands they run, model / api_base…). The answer takes a deliberate act
(frontends/tui/screens/deliberate.py): 1 selects Trust, 2 Not now, Enter confirms (Not now has the focus
at first), Escape goes on without. Trust is recorded in the user's config dir until the files
change. The buttons stay on screen at 80×24: the list gives up its height to them and scrolls
(Up, Down, PageUp, PageDown, Home, End).
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

from agent_tui.frontends.tui.screens.deliberate import Deliberate

_SCROLL_KEYS = {
    "down": "scroll_down",
    "up": "scroll_up",
    "pagedown": "scroll_page_down",
    "pageup": "scroll_page_up",
    "home": "scroll_home",
    "end": "scroll_end",
}


class TrustScreen(Deliberate, ModalScreen[bool]):
    CHOICES = ("trust-yes", "trust-no")
    BINDINGS: ClassVar = [
        Binding("escape", "not_now", "Not now", show=False),
        *(Binding(key, f"scroll_list('{action}')", show=False) for key, action in _SCROLL_KEYS.items()),
    ]
    FIXED_ROWS = 14
    """Rows besides the list: border, padding, title, the folder and why, the note, the
    buttons and the key line, with their margins."""

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
                yield Button("1 Trust", id="trust-yes", variant="warning", compact=True)
                yield Button("2 Not now", id="trust-no", variant="primary", compact=True)
            yield Label(
                "1 or 2 selects, Enter answers · Esc: not now · ↑↓ PgUp PgDn scroll the list",
                classes="dialog-note",
                id="trust-note",
            )

    def on_mount(self) -> None:
        self.query_one("#trust-no", Button).focus()
        self._fit_list()
        self.arm_later()

    def on_resize(self) -> None:
        self._fit_list()

    def _fit_list(self) -> None:
        """The list takes what the buttons leave, so they never fall off a short terminal."""
        room = int(self.size.height * 0.9) - self.FIXED_ROWS
        self.query_one("#trust-list").styles.max_height = max(2, min(12, room))

    def action_scroll_list(self, action: str) -> None:
        getattr(self.query_one("#trust-list", VerticalScroll), action)(animate=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.may_decide():
            note = "Your typing went to your message · 1 or 2 selects, Enter answers · Esc: not now"
            self.query_one("#trust-note", Label).update(note)
            return
        self.dismiss(event.button.id == "trust-yes")

    def action_not_now(self) -> None:
        self.dismiss(False)
