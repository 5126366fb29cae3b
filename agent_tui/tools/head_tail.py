"""The head and the tail of a stream of bytes, in bounded memory.

What a reader of a long output needs most is how it started and how it ended; the middle is
counted, not kept. A command's inline output (bash.py), a background command's unread part
(background.py) and an output the store could not take (agent/lost_writes.py) all keep one.
"""

from __future__ import annotations


class HeadTail:
    """Keeps at most `limit` bytes of a stream: its head and its tail, counting what was dropped."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    def text(self, omitted_note: str = "bytes of output omitted") -> str:
        """Head and tail as text, with a line saying how many bytes between were dropped."""
        omitted = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        if omitted <= 0:
            return head + tail
        return f"{head}\n[… {omitted} {omitted_note} …]\n{tail}"
