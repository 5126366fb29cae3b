"""grep over a stored output: matching lines with their numbers, optional context lines.

The output is scanned a batch of chunks at a time; the regex runs over each batch's text at
once (far faster than line by line) and line numbers are counted between matches; a pattern
without regex syntax is searched as bytes, without decoding. Batches are cut after a newline, so
a line is never split between two scans (a line longer than 8 MB is the exception: it is scanned
in pieces). Decompression, most of the cost, runs ahead on the store's worker threads; the scan
runs in a daemon thread with a time budget (see bounded_regex.py), so a catastrophic pattern
never blocks the event loop and stops with a "search stopped" note.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import partial

from agent_tui.base.bounded_regex import (
    DEFAULT_BUDGET,
    MULTILINE,
    Deadline,
    Pattern,
    SearchStopped,
    compile_regex,
    error,
    in_daemon_thread,
)
from agent_tui.context.views import cut_line
from agent_tui.store.chunks import decompress
from agent_tui.store.db import Database
from agent_tui.store.errors import BadPattern

_FETCH = 8
"""Chunks (≤ 512 KB) decompressed per job."""
_AHEAD = 4
"""Jobs decompressing ahead of the scan."""
_CARRY_LIMIT = 8 << 20


def compile_pattern(pattern: str) -> Pattern:
    if not pattern:
        raise BadPattern('empty grep pattern: pass a regular expression, e.g. pattern="error"')
    try:
        return compile_regex(pattern, MULTILINE)
    except error as exc:
        raise BadPattern(
            f"invalid regular expression {pattern!r}: {exc}; escape special "
            "characters (\\( \\[ \\.) to match them literally"
        ) from exc


@dataclass
class ContextWindow:
    """grep's context: fed lines in order with whether each matches, it says which to show — up
    to `context` lines before a match (held back until one comes), the match, up to `context`
    after it — and a line two windows share only once. An output's grep and a transcript
    message's grep (conversation.py) both pick their lines with it."""

    context: int
    _before: deque[tuple[int, str]] = field(default_factory=deque)
    _after: int = 0
    _shown: int = 0

    def __post_init__(self) -> None:
        self.context = max(0, self.context)  # a negative width is no context, as in grep
        self._before = deque(maxlen=self.context)  # older held lines fall out by themselves

    @property
    def trailing(self) -> bool:
        """Lines after a match are still to be shown (the next line is shown whatever it is)."""
        return self._after > 0

    def hold(self, number: int, line: str) -> None:
        """Remember a line that did not match: it may come before the next match."""
        self._before.append((number, line))

    def feed(self, number: int, line: str, match: bool) -> Sequence[tuple[int, str, bool]]:
        """The lines to show now, as (number, text, is a match), in order."""
        if match:
            shown = [(before, text, False) for before, text in self._before if before > self._shown]
            self._before.clear()
            shown.append((number, line, True))
            self._after = self.context
        elif self._after:
            self._after -= 1
            shown = [(number, line, False)]
        else:
            self._before.append((number, line))  # hold(), inlined: most lines take this path
            return ()
        self._shown = number
        return shown


@dataclass
class GrepScan:
    """Scans text segments of whole lines in order, collecting grep-style output lines."""

    regex: Pattern
    context: int
    max_matches: int
    max_line_length: int
    out: list[tuple[str, bool]] = field(default_factory=list)
    """Output lines, each with whether it is a match (else context or the `--` separator)."""
    matches: int = 0
    truncated: bool = False
    window: ContextWindow = field(init=False)
    _last_printed: int = 0
    literal: bytes | None = None
    """The pattern's UTF-8 bytes when it has no regex syntax: searched without decoding."""
    deadline: Deadline = field(default_factory=lambda: Deadline(DEFAULT_BUDGET))
    """Every regex call stops here (SearchStopped); the matches found so far stay in `out`."""
    stopped: bool = False
    """The budget ran out before the end of the output."""

    def __post_init__(self) -> None:
        self.window = ContextWindow(self.context)

    def feed_bytes(self, data: bytes, first_line: int) -> None:
        """Like `feed`, for raw bytes; a literal pattern is found without decoding them."""
        if self.literal is not None and self.context == 0:
            self._literal_only(data, first_line)
        else:
            text = data.decode("utf-8", "replace")
            # CRLF output: `$` must match before the CR too, as it does in grep.
            self.feed(text.replace("\r\n", "\n") if "\r" in text else text, first_line)

    def _literal_only(self, data: bytes, first_line: int) -> None:
        number, counted, pos, end = first_line, 0, 0, len(data)
        needle = self.literal or b""
        while not self.truncated:
            found = data.find(needle, pos)
            if found < 0:
                return
            start = data.rfind(b"\n", 0, found) + 1
            stop = data.find(b"\n", found)
            stop = end if stop < 0 else stop
            number += data.count(b"\n", counted, start)
            counted = start
            self._emit(number, data[start:stop].decode("utf-8", "replace"), ":")
            self.matches += 1
            self.truncated = self.matches >= self.max_matches
            pos = stop + 1

    def feed(self, text: str, first_line: int) -> None:
        """`text` holds whole lines starting at line `first_line` (no trailing newline)."""
        if self.truncated:
            return
        if self.context == 0:
            self._matches_only(text, first_line)
            return
        if not self.window.trailing and self.deadline.search(self.regex, text) is None:
            self._remember_tail(text, first_line)
            return
        for offset, line in enumerate(text.split("\n")):
            self._line(first_line + offset, line)
            if self.truncated:
                return

    def _emit(self, number: int, line: str, sep: str) -> None:
        if self.context and self._last_printed and number > self._last_printed + 1:
            self.out.append(("--", False))
        text = cut_line(line[:-1] if line.endswith("\r") else line, self.max_line_length)[0]
        self.out.append((f"{number}{sep}{text}", sep == ":"))
        self._last_printed = number

    def _matches_only(self, text: str, first_line: int) -> None:
        number, counted, pos, end = first_line, 0, 0, len(text)
        search, regex = self.deadline.search, self.regex
        while pos <= end:
            found = search(regex, text, pos)
            if found is None:
                return
            start = text.rfind("\n", 0, found.start()) + 1
            stop = text.find("\n", found.start())
            stop = end if stop < 0 else stop
            number += text.count("\n", counted, start)
            counted = start
            self._emit(number, text[start:stop], ":")
            self.matches += 1
            if self.matches >= self.max_matches:
                self.truncated = True
                return
            pos = stop + 1

    def _remember_tail(self, text: str, first_line: int) -> None:
        # Only the last `context` lines can precede a match in the next segment.
        lines = text.rsplit("\n", self.context)
        tail = lines[1:] if len(lines) > self.context else lines
        last = first_line + text.count("\n")
        for i, line in enumerate(tail):
            self.window.hold(last - len(tail) + 1 + i, line)

    def _line(self, number: int, line: str) -> None:
        match = self.deadline.search(self.regex, line) is not None
        for shown, text, is_match in self.window.feed(number, line, match):
            self._emit(shown, text, ":" if is_match else "-")
        if match:
            self.matches += 1
            if self.matches >= self.max_matches:
                self.truncated = True


_LITERAL = re.compile(r"[^\\.^$*+?{}\[\]|()]+")


def literal_of(pattern: str) -> bytes | None:
    """UTF-8 bytes of a pattern without regex syntax (searched without decoding), else None."""
    return pattern.encode("utf-8") if _LITERAL.fullmatch(pattern) else None


def _inflate(rows: list[tuple[int, int, bytes]]) -> list[bytes]:
    return [decompress(codec, data) for _, codec, data in rows]


def _scan(
    scan: GrepScan, carry: bytes, carry_line: int, pieces: list[bytes], final: bool
) -> tuple[bytes, int]:
    """Scan a batch (worker thread); return the unfinished last line and its number."""
    data = carry + b"".join(pieces)
    cut = len(data) if final else data.rfind(b"\n") + 1
    if not final and cut == 0 and len(data) > _CARRY_LIMIT:
        cut = len(data)
    if cut:
        whole = data[: cut - 1] if data[cut - 1 : cut] == b"\n" else data[:cut]
        scan.feed_bytes(whole, carry_line)
        carry_line += data.count(b"\n", 0, cut)
    return data[cut:], carry_line


async def grep_blob(
    db: Database,
    pool: Executor,
    blob_id: str,
    regex: Pattern,
    context: int,
    max_matches: int,
    max_line_length: int,
    budget: float = DEFAULT_BUDGET,
) -> GrepScan:
    """Scan a stored output; when the budget runs out the partial result has `stopped` set."""
    deadline = Deadline(budget)
    scan = GrepScan(
        regex,
        max(0, context),
        max(1, max_matches),
        max_line_length,
        literal=literal_of(regex.pattern),
        deadline=deadline,
    )
    loop = asyncio.get_running_loop()
    # Both pool workers decompress batches ahead while this thread scans them in order
    # (decompression is most of the cost; zlib releases the GIL).
    ahead: deque[asyncio.Future[list[bytes]]] = deque()
    next_seq, exhausted = 0, False

    async def refill() -> None:
        nonlocal next_seq, exhausted
        while not exhausted and len(ahead) < _AHEAD:
            rows = await db.fetchall(
                "SELECT seq, codec, data FROM blob_chunks WHERE blob_id = ? AND seq >= ? "
                "ORDER BY seq LIMIT ?",
                (blob_id, next_seq, _FETCH),
            )
            exhausted = len(rows) < _FETCH
            if rows:
                next_seq = rows[-1][0] + 1
                ahead.append(loop.run_in_executor(pool, _inflate, rows))

    carry, line = b"", 1
    try:
        await refill()
        while ahead and not scan.truncated:
            pieces = await ahead.popleft()
            await refill()
            final = exhausted and not ahead
            carry, line = await in_daemon_thread(partial(_scan, scan, carry, line, pieces, final), deadline)
    except SearchStopped:
        scan.stopped = True
    finally:
        for future in ahead:
            future.cancel()
    return scan
