"""The permission mode line above the meter: shown while the mode is not default, as Claude Code
shows `⏸ plan mode on (shift+tab to cycle)`, so nobody wonders why an edit was not asked about
or was refused."""

from __future__ import annotations

from textual.widgets import Static

from agent_tui.policy.permission_modes import LABELS

MARKS = {"accept_edits": "⏵⏵", "plan": "⏸"}


class ModeLine(Static):
    DEFAULT_CSS = """
    ModeLine {
        height: 1;
        padding: 0 1;
        color: $warning;
    }
    """

    def on_mount(self) -> None:
        self.display = False

    def show_mode(self, mode: str) -> None:
        self.display = mode != "default"
        mark = MARKS.get(mode, "")
        self.update(f"{mark} {LABELS.get(mode, mode)} mode on (shift+tab to cycle)")
