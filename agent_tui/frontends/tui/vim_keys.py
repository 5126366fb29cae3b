"""Vim keys in the input (`[ui] editing_mode = "vim"`): insert and normal mode.

Insert mode types as the input always does; Esc goes to normal mode (Esc there interrupts a
running turn, as it does without vim). Normal mode: `h j k l`, `w b e`, `0 ^ $`, `gg G` move;
`x` deletes a character, `dd` the line, `dw` a word, `D` / `d$` to the end of the line; `i a I A
o O` enter insert mode; `u` / Ctrl+R undo and redo; `.` repeats the last change; a count
(`3x`, `2dd`) repeats a command. Enter sends in either mode. The keys drive the TextArea's own
actions, so undo, the paste chips and the completion menu behave as they do without vim.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from textual.widgets import TextArea

Mode = Literal["insert", "normal"]

MOTIONS: dict[str, str] = {
    "h": "cursor_left",
    "left": "cursor_left",
    "l": "cursor_right",
    "right": "cursor_right",
    "j": "cursor_down",
    "down": "cursor_down",
    "k": "cursor_up",
    "up": "cursor_up",
    "w": "cursor_word_right",
    "e": "cursor_word_right",
    "b": "cursor_word_left",
    "0": "cursor_line_start",
    "circumflex_accent": "cursor_line_start",
    "^": "cursor_line_start",
    "dollar_sign": "cursor_line_end",
    "$": "cursor_line_end",
}
"""Key (Textual's name or character) → TextArea action."""

CHANGES: dict[str, str] = {
    "x": "delete_right",
    "dd": "delete_line",
    "dw": "delete_word_right",
    "D": "delete_to_end_of_line",
    "d$": "delete_to_end_of_line",
}
"""Keys that change the text (what `.` repeats) → TextArea action."""


class VimKeys:
    """The mode and the keys typed so far in normal mode, for one input."""

    def __init__(self, area: TextArea, on_mode: Callable[[Mode], None]) -> None:
        self.area = area
        self.on_mode = on_mode
        self.mode: Mode = "insert"
        self.pending = ""
        self.count = ""
        self.last_change: tuple[str, int] | None = None

    def set_mode(self, mode: Mode) -> None:
        self.mode, self.pending, self.count = mode, "", ""
        self.on_mode(mode)

    def handle(self, key: str, character: str | None) -> bool:
        """True when the key was vim's (the input must not also act on it)."""
        if self.mode == "insert":
            if key == "escape":
                self.set_mode("normal")
                return True
            return False
        if key in ("enter", "escape") or key.startswith("ctrl+") and key != "ctrl+r":
            self.pending = self.count = ""
            return False  # sending, interrupting and the app's keys work as ever
        char = character or ""
        if char.isdigit() and (self.count or char != "0") and not self.pending:
            self.count += char
            return True
        times = int(self.count or "1")
        word = self.pending + (char if char and char.isprintable() else key)
        self.pending = ""
        if word in CHANGES:
            self._change(word, times)
            self.last_change = (word, times)
        elif word == "." and self.last_change is not None:
            self._change(*self.last_change)
        elif word in MOTIONS or key in MOTIONS:
            for _ in range(times):
                getattr(self.area, f"action_{MOTIONS.get(word) or MOTIONS[key]}")()
        elif word in ("d", "g"):
            self.pending = word
            return True
        elif word == "gg":
            self.area.move_cursor((0, 0))
        elif word == "G":
            self.area.move_cursor(self.area.document.end)
        elif word in ("i", "a", "I", "A", "o", "O"):
            self._enter_insert(word)
            return True
        elif word == "u":
            self.area.action_undo()
        elif key == "ctrl+r":
            self.area.action_redo()
        self.count = ""
        return True  # every other key does nothing in normal mode (it never types)

    def _change(self, word: str, times: int) -> None:
        for _ in range(times):
            if word == "dd":
                self._delete_line()
            else:
                getattr(self.area, f"action_{CHANGES[word]}")()

    def _delete_line(self) -> None:
        """`dd`: the cursor's line and its line break (the TextArea's own leaves an empty line)."""
        area, document = self.area, self.area.document
        row, last = area.cursor_location[0], document.line_count - 1
        if last == 0:
            area.delete((0, 0), (0, len(document.get_line(0))))
        elif row < last:
            area.delete((row, 0), (row + 1, 0))
        else:
            area.delete((row - 1, len(document.get_line(row - 1))), (row, len(document.get_line(row))))

    def _enter_insert(self, word: str) -> None:
        area = self.area
        if word == "a":
            row, column = area.cursor_location
            if column < len(area.document.get_line(row)):
                area.action_cursor_right()
        elif word == "I":
            area.action_cursor_line_start()
        elif word == "A":
            area.action_cursor_line_end()
        elif word == "o":
            area.action_cursor_line_end()
            area.insert("\n")
        elif word == "O":
            area.action_cursor_line_start()
            area.insert("\n")
            area.action_cursor_up()
        self.set_mode("insert")
