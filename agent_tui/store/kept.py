"""What is kept in memory of an output while it streams, so its view needs no read-back.

The loop shows the model a view (head, tail, counts) of every long output right after storing it.
Reading that back from SQLite means waiting for the chunks to be compressed and committed — work
that can otherwise happen after the request is out (store/spool.py). So the stream's first and
last `KEEP` bytes and its counts are kept as it passes; `view` builds the view from them, or
says it cannot (a line longer than what was kept) and the store's own view is used.
"""

from __future__ import annotations

from agent_tui.context import views

KEEP = 256 * 1024
"""Bytes kept at each end: views are a few KB, lines are cut at a few KB."""


class KeptEnds:
    """The first and last KEEP bytes of a stream, its size and line count."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.byte_size = 0
        self.newlines = 0
        self.ends_with_newline = False

    def add(self, data: bytes) -> None:
        if not data:
            return
        self.byte_size += len(data)
        self.newlines += data.count(b"\n")
        self.ends_with_newline = data.endswith(b"\n")
        if len(self.head) < self.keep:
            self.head += data[: self.keep - len(self.head)]
        self.tail += data[-self.keep :]
        if len(self.tail) > 2 * self.keep:  # trimmed now and then, not on every piece
            del self.tail[: len(self.tail) - self.keep]

    @property
    def whole(self) -> bool:
        return self.byte_size <= self.keep

    @property
    def line_count(self) -> int:
        if not self.byte_size:
            return 0
        return self.newlines + (0 if self.ends_with_newline else 1)

    def view(self, tool_name: str, ref_id: str, size: int, max_line_length: int) -> str | None:
        """The store's view of this output, or None when what was kept is not enough."""
        totals = views.OutputTotals(tool_name, self.byte_size, self.line_count, ref_id)
        head = bytes(self.head).decode("utf-8", "replace")
        tail = "" if self.whole else bytes(self.tail[-self.keep :]).decode("utf-8", "replace")
        return views.kept_view(head, tail, self.whole, totals, size, max_line_length)
