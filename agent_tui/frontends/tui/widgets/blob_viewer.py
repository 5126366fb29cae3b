"""A viewer for stored outputs of any length: it reads windows of lines, never the whole blob.

A Line API widget: its virtual height is the blob's line count, and `render_line` draws a line
from a cache of highlighted windows. A line whose window is not cached yet draws as a
placeholder and asks for the window; one loader reads the wanted windows that are still on
screen (a fast scroll skips the ones it passed) and refreshes. So a million-line output opens,
and jumps to its end, in the time of one window read.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from rich.segment import Segment
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from agent_tui.base.bounded_regex import Pattern, SearchStopped, compile_regex
from agent_tui.base.bounded_regex import error as regex_error
from agent_tui.base.errors_text import one_line
from agent_tui.frontends.tui.widgets.blob_highlight import Highlighter
from agent_tui.frontends.tui.widgets.picture_blob import PictureBlob, picture_of

if TYPE_CHECKING:
    from agent_tui.base.messages import ResultRef
    from agent_tui.store import ResultStore

log = logging.getLogger(__name__)

WINDOW = 200
"""Lines per read (and per cache entry)."""
CACHE_WINDOWS = 64
"""Windows kept; the least recently drawn go first."""
MAX_LINE = 2000
"""Characters shown of a line; the store cuts the rest with a mark."""
MAX_MATCHES = 10_000


class BlobSource(Protocol):
    """Where the viewer reads lines from (the result store, or anything with lines)."""

    @property
    def ref_id(self) -> str: ...
    @property
    def line_count(self) -> int: ...
    async def lines(self, start: int, count: int) -> list[str]: ...

    async def grep(self, pattern: str) -> tuple[list[int], bool]:
        """Line numbers matching the regex `pattern`, and whether the list was cut short."""
        ...


@dataclass
class StoreBlob:
    """A stored tool output, read through the result store's windowed API."""

    results: ResultStore
    ref: ResultRef

    @property
    def ref_id(self) -> str:
        return self.ref.id

    @property
    def line_count(self) -> int:
        return self.ref.line_count

    async def lines(self, start: int, count: int) -> list[str]:
        return await self.results.read_lines(self.ref.id, start, count, max_line_length=MAX_LINE)

    async def grep(self, pattern: str) -> tuple[list[int], bool]:
        # One character per line is enough: only the numbers are used.
        text = await self.results.grep(
            self.ref.id, pattern, max_matches=MAX_MATCHES, max_line_length=1, max_bytes=MAX_MATCHES * 24
        )
        if "[search stopped after" in text or text.startswith("[no match of"):
            # The budget ran out (a catastrophic pattern): the screen shows this as a notice.
            raise SearchStopped(self.results.search_timeout)
        numbers = [int(m.group(1)) for m in re.finditer(r"^(\d+):", text, re.MULTILINE)]
        return numbers, len(numbers) >= MAX_MATCHES or "[more matches exist" in text


@dataclass(frozen=True)
class HighlightPattern:
    """The grep pattern for marking matches while drawing: each line gets a few milliseconds,
    so a pattern that backtracks without end cannot freeze the screen (marks just stop)."""

    pattern: Pattern
    budget: float = 0.02

    def finditer(self, text: str) -> Iterator[Any]:
        try:
            yield from self.pattern.finditer(text, timeout=self.budget)
        except TimeoutError:
            return


_CONTROLS = {c: 0x2400 + c for c in range(32) if c != 9} | {127: 0x2421}
"""C0 controls as their visible symbols (␛, ␀ …): raw escapes never reach the terminal."""


class BlobViewer(ScrollView, can_focus=True):
    """Numbered, highlighted lines of one blob; `/` greps, `n`/`N` step through matches."""

    BINDINGS: ClassVar = [
        Binding("home,g", "top", "Top", show=False),
        Binding("end,G", "bottom", "End", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("n", "next_match(1)", "Next match"),
        Binding("N", "next_match(-1)", "Previous match"),
        Binding("o", "open_picture", "Open picture", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "viewer--gutter",
        "viewer--current",
        "viewer--match",
        "viewer--pending",
        "viewer--error",
        "viewer--warning",
        "viewer--ok",
        "viewer--number",
    }
    DEFAULT_CSS = """
    BlobViewer { background: $background; }
    BlobViewer > .viewer--gutter { color: $text-muted; }
    BlobViewer > .viewer--current { background: $primary 30%; text-style: bold; }
    BlobViewer > .viewer--match { background: $warning 40%; text-style: bold underline; }
    BlobViewer > .viewer--pending { color: $text-disabled; }
    BlobViewer > .viewer--error { color: $error; text-style: bold; }
    BlobViewer > .viewer--warning { color: $warning; }
    BlobViewer > .viewer--ok { color: $success; }
    BlobViewer > .viewer--number { color: $secondary; }
    """

    @dataclass
    class MatchMoved(Message):
        """The current grep match changed (for the header's `match 3/120`)."""

        viewer: BlobViewer
        index: int
        total: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source: BlobSource | None = None
        self.highlighter = Highlighter()
        self.current: int | None = None
        """The line a jump or a match landed on (marked ▶ in the gutter)."""
        self.matches: list[int] = []
        self._match_set: set[int] = set()
        self._match_index = -1
        self._jumped = False  # moved by g / G / page since the last match: n searches from the view
        self._pattern: HighlightPattern | None = None
        self._cache: OrderedDict[int, list[Text]] = OrderedDict()
        self._wanted: set[int] = set()
        self._loading = False
        self._error: str | None = None
        self._widest = 0
        self._generation = 0  # bumped on open: a late window of the previous blob is dropped

    # -- opening and state ---------------------------------------------------------------------

    def open(self, source: BlobSource | None, *, hint: str | None = None, line: int | None = None) -> None:
        """Show `source` (None: nothing); `hint` names a file to pick the syntax by."""
        self._generation += 1
        self.source = source
        self.highlighter = Highlighter(hint)
        self._cache.clear()
        self._wanted.clear()
        self._error = None
        self._widest = 0
        self.clear_matches()
        self.current = None
        self._resize()
        self.scroll_to(0, 0, animate=False, immediate=True)
        if line is not None:
            self.goto(line)
        self.refresh()
        if isinstance(source, StoreBlob):  # a stored picture is described, not drawn as bytes
            self.run_worker(
                self._picture(source, self._generation), group="blob-picture", exit_on_error=False
            )

    async def _picture(self, source: StoreBlob, generation: int) -> None:

        picture = await picture_of(source.results, source.ref)
        if picture is not None and generation == self._generation:
            self.open(picture)

    async def action_open_picture(self) -> None:

        if isinstance(self.source, PictureBlob):
            self.notify(await self.source.open_outside())

    def on_mount(self) -> None:
        # Highlight colours follow the theme: drop the windows rendered with the old one.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    def _restyle(self) -> None:
        self._cache.clear()
        self.refresh()

    @property
    def line_count(self) -> int:
        return self.source.line_count if self.source is not None else 0

    @property
    def gutter_width(self) -> int:
        return len(str(max(self.line_count, 1))) + 3

    @property
    def top_line(self) -> int:
        return int(self.scroll_y) + 1

    @property
    def settled(self) -> bool:
        """Every line on screen is read (or failed): what a test or benchmark waits for."""
        if self.source is None or self._error is not None:
            return True
        return (
            not self._loading and not self._wanted and all(w in self._cache for w in self._visible_windows())
        )

    def _resize(self) -> None:
        width = self.gutter_width + max(self._widest, 1)
        self.virtual_size = Size(width, self.line_count)

    def _visible_windows(self) -> set[int]:
        if not self.line_count:
            return set()
        first = int(self.scroll_y)
        last = min(self.line_count - 1, first + max(self.size.height, 1) - 1)
        return set(range(first // WINDOW, last // WINDOW + 1))

    # -- jumping -------------------------------------------------------------------------------

    def goto(self, line: int) -> None:
        """Put line `line` (1-based, clamped) a third of the way down and mark it."""
        if not self.line_count:
            return
        line = min(max(line, 1), self.line_count)
        self.current = line
        self.scroll_to(y=max(0, line - 1 - self.size.height // 3), animate=False, immediate=True)
        self.refresh()

    def action_top(self) -> None:
        self.scroll_to(y=0, animate=False, immediate=True)
        self._jumped = True

    def action_bottom(self) -> None:
        self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        self._jumped = True

    def action_page(self, pages: int) -> None:
        self.scroll_to(y=self.scroll_y + pages * max(self.size.height - 1, 1), animate=False, immediate=True)
        self._jumped = True

    # -- grep ----------------------------------------------------------------------------------

    def clear_matches(self) -> None:
        self.matches, self._match_set, self._match_index, self._pattern = [], set(), -1, None

    def set_matches(self, pattern: str, numbers: list[int]) -> None:
        """Show the grep result for `pattern` and jump to the first match from the top line."""
        self.matches, self._match_set = numbers, set(numbers)
        try:
            self._pattern = HighlightPattern(compile_regex(pattern))
        except regex_error:
            self._pattern = None
        self._match_index = -1
        if numbers:
            start = self.current if self.current is not None else self.top_line
            following = next((i for i, n in enumerate(numbers) if n >= start), 0)
            self._jump_to_match(following)
        self.refresh()

    def action_next_match(self, step: int) -> None:
        """`n` / `N`: the next match after the last one, or — after `g`, `G` or a page — the first
        match below the top of the view (the last one above its bottom)."""
        if not self.matches:
            self.app.bell()
            return
        if self._jumped or self._match_index < 0:
            self._jumped = False
            top = self.top_line
            bottom = top + max(self.size.height, 1) - 1
            if step > 0:
                index = next((i for i, n in enumerate(self.matches) if n >= top), 0)
            else:
                index = next((i for i in reversed(range(len(self.matches))) if self.matches[i] <= bottom), -1)
            self._jump_to_match(index % len(self.matches))
            return
        self._jump_to_match((self._match_index + step) % len(self.matches))

    def _jump_to_match(self, index: int) -> None:
        self._jumped = False
        self._match_index = index
        self.goto(self.matches[index])
        self.post_message(self.MatchMoved(self, index, len(self.matches)))

    # -- reading -------------------------------------------------------------------------------

    def _request(self, window: int) -> None:
        self._wanted.add(window)
        if not self._loading:
            self._loading = True
            self.run_worker(self._load_wanted(self._generation), group="blob-lines", exit_on_error=False)

    async def _load_wanted(self, generation: int) -> None:
        try:
            while self._wanted and generation == self._generation:
                visible = self._visible_windows()
                todo = sorted(self._wanted & visible)
                self._wanted.clear()  # passed by a fast scroll: not worth reading
                for window in todo:
                    if window not in self._cache:
                        await self._fetch(window, generation)
                self.refresh()
        finally:
            self._loading = False
            if self._wanted:  # asked for while this loader was finishing (or for a new blob)
                self._request(next(iter(self._wanted)))

    async def _fetch(self, window: int, generation: int) -> None:
        source = self.source
        assert source is not None
        start = window * WINDOW + 1
        count = min(WINDOW, source.line_count - start + 1)
        try:
            lines = await source.lines(start, count)
        except Exception as exc:
            log.exception("reading lines %d-%d of %s failed", start, start + count - 1, source.ref_id)
            self._error = one_line(exc, 160) or type(exc).__name__
            return
        if generation != self._generation:
            return
        lines = [line.translate(_CONTROLS).expandtabs(8) for line in lines]
        texts = self.highlighter.highlight(lines, self)
        self._cache[window] = texts
        while len(self._cache) > CACHE_WINDOWS:
            self._cache.popitem(last=False)
        widest = max((t.cell_len for t in texts), default=0)
        if widest > self._widest:
            self._widest = widest
            self._resize()

    # -- drawing -------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        number = int(self.scroll_y) + y + 1
        if self.source is None or number > self.line_count:
            text = "(empty output)" if self.source is not None and not self.line_count and y == 0 else ""
            return Strip([Segment(text, base)]).extend_cell_length(width, base)
        gutter_style = base + self.get_component_rich_style("viewer--gutter")
        mark = "▶" if number == self.current else ("•" if number in self._match_set else " ")
        digits = self.gutter_width - 3
        gutter = Segment(f"{mark}{number:>{digits}}  ", gutter_style)
        window, offset = divmod(number - 1, WINDOW)
        texts = self._cache.get(window)
        if texts is None or offset >= len(texts):
            if self._error is not None:
                body = Text(
                    f"could not read this output: {self._error}",
                    style=self.get_component_rich_style("viewer--error"),
                )
            else:
                self._request(window)
                body = Text("…", style=self.get_component_rich_style("viewer--pending"))
        else:
            self._cache.move_to_end(window)
            body = texts[offset]
            if self._pattern is not None and number in self._match_set:
                body = body.copy()
                style = self.get_component_rich_style("viewer--match")
                for match in self._pattern.finditer(body.plain):
                    if match.end() > match.start():
                        body.stylize(style, match.start(), match.end())
        room = max(width - self.gutter_width, 0)
        segments = list(body.render(self.app.console, end=""))
        content = Strip(segments).crop(int(self.scroll_x), int(self.scroll_x) + room)
        line_style = base
        if number == self.current:
            line_style = base + self.get_component_rich_style("viewer--current")
        content = content.apply_style(line_style).extend_cell_length(room, line_style)
        return Strip.join([Strip([gutter]), content]).simplify()
