"""Cutting an output into line-aligned chunks that know their first line number.

A chunk is at most `size` bytes and ends after a newline when the window holds one, so most lines
live in one chunk and reading lines 900000-900100 decompresses one or two chunks. A line longer
than a chunk is split mid-line; the chunks after the first then start inside it and carry its
number. Each chunk records `first_line` (line its first byte belongs to) and `end_line` (line its
last byte belongs to); the chunk where line N starts is the first one whose `end_line >= N`.

Pure code: no I/O. Compression runs in worker threads (zlib releases the GIL).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

CHUNK_SIZE = 64 * 1024
FTS_LIMIT = 16 * 1024 * 1024
"""Only the first 16 MB of an output are indexed for recall (chunks holding NUL bytes, i.e.
binary output, never are)."""
RAW, ZLIB = 0, 1
"""Codecs: data kept as is (when zlib does not shrink it) or zlib-compressed."""


@dataclass(frozen=True)
class Chunk:
    """One piece of an output, before compression."""

    seq: int
    """0-based position in the output."""
    first_line: int
    """1-based line number of the chunk's first byte."""
    end_line: int
    """1-based line number of the chunk's last byte."""
    start_byte: int
    """Byte offset of the chunk in the output."""
    data: bytes
    """The raw bytes."""


class Chunker:
    """Turns a stream of byte pieces of any size into chunks, holding at most one chunk's worth."""

    def __init__(self, size: int = CHUNK_SIZE) -> None:
        self.size = size
        self._parts: list[bytes] = []
        self._pending = 0
        self._seq = 0
        self._line = 1
        self.byte_size = 0
        """Bytes emitted so far (all of them after `finish`)."""
        self.newlines = 0
        self.ends_with_newline = False

    def feed(self, data: bytes) -> list[Chunk]:
        """Add bytes; return the chunks completed by them."""
        if not data:
            return []
        self._parts.append(data)
        self._pending += len(data)
        if self._pending < self.size:
            return []
        buf = b"".join(self._parts)
        out: list[Chunk] = []
        pos, size, total = 0, self.size, len(buf)
        while total - pos >= size:
            cut = buf.rfind(b"\n", pos, pos + size)
            end = cut + 1 if cut >= 0 else pos + size
            out.append(self._emit(buf[pos:end]))
            pos = end
        rest = buf[pos:]
        self._parts = [rest] if rest else []
        self._pending = len(rest)
        return out

    def finish(self) -> list[Chunk]:
        """Emit what is left (the last, possibly short, chunk)."""
        if not self._pending:
            return []
        buf = b"".join(self._parts)
        self._parts, self._pending = [], 0
        return [self._emit(buf)]

    @property
    def line_count(self) -> int:
        """Lines so far: newlines, plus one for a last line without its newline."""
        if not self.byte_size:
            return 0
        return self.newlines + (0 if self.ends_with_newline else 1)

    def _emit(self, raw: bytes) -> Chunk:
        newlines = raw.count(b"\n")
        ends = raw.endswith(b"\n")
        first = self._line
        chunk = Chunk(
            seq=self._seq,
            first_line=first,
            end_line=first + newlines - (1 if ends else 0),
            start_byte=self.byte_size,
            data=raw,
        )
        self._seq += 1
        self._line += newlines
        self.newlines += newlines
        self.byte_size += len(raw)
        self.ends_with_newline = ends
        return chunk


def compress(data: bytes) -> tuple[int, bytes]:
    """(codec, stored bytes): zlib level 1 (fast; text shrinks 3-5×), raw if that does not help."""
    packed = zlib.compress(data, 1)
    return (ZLIB, packed) if len(packed) < len(data) else (RAW, data)


def decompress(codec: int, data: bytes) -> bytes:
    return zlib.decompress(data) if codec == ZLIB else bytes(data)


def inflate_text(codec: int, data: bytes) -> str:
    """Chunk text for the FTS index (SQL function `agent_tui_text`); must stay deterministic:
    deleting a chunk from the index hands FTS5 this same text again."""
    return decompress(codec, data).decode("utf-8", "replace")


def to_bytes(content: str | bytes) -> bytes:
    """Bytes for a str, keeping undecodable bytes a tool decoded with surrogateescape."""
    if isinstance(content, (bytes, bytearray, memoryview)):
        return bytes(content)
    try:
        return content.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return content.encode("utf-8", "surrogatepass")


def preview(first_bytes: bytes, limit: int = 200) -> str:
    line = first_bytes.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    return line if len(line) <= limit else line[: limit - 1] + "…"
