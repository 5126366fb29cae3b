"""The newest lines of a running command, shown under its tool line until it finishes.

Output arrives in pieces of any size (agent/live_output.py passes on what gathered since the
loop last looked); only the last `LIVE_LINES` complete lines and the line still being written
are kept, so a command printing a million lines costs the chat five rows. The tool line paints
them on its clock's tick (ten times a second), never once per piece, and lays the screen out
again only when the number of rows changes.
"""

from __future__ import annotations

from collections import deque

LIVE_LINES = 5
"""Lines of a running command shown under its call (Claude Code shows a handful)."""

MAX_PARTIAL = 4096
"""Characters of an unfinished line kept (a progress bar without newlines stays bounded)."""


class LiveTail:
    """The newest lines of a running call's output, and how many came in all."""

    def __init__(self) -> None:
        self.lines: deque[str] = deque(maxlen=LIVE_LINES)
        self.partial = ""
        self.count = 0
        """Complete lines seen (those skipped upstream are not counted)."""
        self.changed = False
        """Something arrived since the line last painted."""

    def add(self, text: str) -> None:
        pieces = (self.partial + text).split("\n")
        self.partial = pieces.pop()[-MAX_PARTIAL:]
        for line in pieces:
            self.lines.append(_newest(line))
            self.count += 1
        self.changed = True

    def shown(self) -> list[str]:
        """The rows to draw, oldest first (the unfinished line last, when there is one)."""
        rows = list(self.lines)
        if partial := _newest(self.partial):
            rows.append(partial)
        return rows[-LIVE_LINES:]

    @property
    def hidden(self) -> int:
        """Complete lines that scrolled out of the shown rows."""
        return max(0, self.count - len(self.lines))


def _newest(line: str) -> str:
    """A line a progress bar redrew in place with `\r`: what the terminal would show last."""
    return line.rstrip("\r").rsplit("\r", 1)[-1]
