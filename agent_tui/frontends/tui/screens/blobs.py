"""/blobs: the session's stored outputs, a recall search over them, and a viewer.

F3 switches to the conversation: the transcripts of the scope's sessions, and a recall search
over what was said (messages compaction dropped included); a hit opens the transcript at its
message. Browsing reads only: nothing here counts as a model read or writes to the database.

The table lists what the scope holds (this session, this project, everything); typing in the
search box ranks outputs by recall (BM25) instead. Moving through the table opens each output
in the viewer below, which reads windows of lines and greps inside the blob. `y` / `Y` copy the
ref and its ctx:// URI. Ages are computed from an injectable clock, so snapshots are stable.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Input, Select, Static

from agent_tui.base.errors_text import one_line
from agent_tui.frontends.tui import formatting
from agent_tui.frontends.tui.screens.blob_rows import (
    SCOPE_LABELS,
    SCOPES,
    BlobRow,
    Scope,
    Source,
    from_resolved,
    row_key,
    scope_filter,
    terms_pattern,
)
from agent_tui.frontends.tui.screens.blob_sources import Browser, ConversationBrowser, OutputsBrowser
from agent_tui.frontends.tui.widgets.blob_viewer import BlobViewer, StoreBlob
from agent_tui.frontends.tui.widgets.transcript_source import TranscriptSource

if TYPE_CHECKING:
    from textual.timer import Timer

    from agent_tui.store import Store

log = logging.getLogger(__name__)

SEARCH_DELAY = 0.25
"""Seconds of no typing before the search runs (Enter runs it at once)."""
wall_clock: Callable[[], float] = time.time
"""Where ages are measured from (snapshot tests freeze it)."""
KEYS = (
    "esc back · ^F search · F2 scope · F3 conversation · ⏎ read · / grep · "
    "n/N match · : line · g/G ends · y ref · Y URI"
)
COLUMNS = ("ref", "tool", "size", "lines", "age", "read", "first line / match")


class BlobsScreen(Screen[None]):
    """The result-blob browser; Escape goes back to the chat."""

    BINDINGS: ClassVar = [
        Binding("escape", "back", "Back"),
        Binding("slash", "prompt('grep')", "Grep"),
        Binding("colon", "prompt('line')", "Go to line"),
        Binding("y", "copy(False)", "Copy ref"),
        Binding("Y", "copy(True)", "Copy URI"),
        Binding("f2", "cycle_scope", "Scope"),
        Binding("f3", "toggle_source", "Outputs / conversation"),
        Binding("ctrl+f", "focus_search", "Search"),
    ]
    DEFAULT_CSS = """
    BlobsScreen { layout: vertical; }
    BlobsScreen #blobs-title { height: 1; padding: 0 1; background: $panel; }
    BlobsScreen #blobs-bar { height: 3; }
    BlobsScreen #blobs-scope { width: 24; }
    BlobsScreen #blobs-search { width: 1fr; }
    BlobsScreen #blobs-table { height: auto; max-height: 11; }
    BlobsScreen #viewer-title { height: 1; padding: 0 1; background: $panel; }
    BlobsScreen #viewer { height: 1fr; }
    BlobsScreen #viewer-prompt { display: none; }
    BlobsScreen #blobs-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    BlobsScreen #viewer-prompt.-open { display: block; }
    """

    def __init__(
        self,
        store: Store,
        *,
        session_id: str | None,
        project: str | None,
        open_ref: str | None = None,
        hints: dict[str, str] | None = None,
        labels: dict[str, str] | None = None,
        scope: Scope | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.project = project
        self.scope: Scope = scope or ("session" if session_id else "project")
        self.browser: Browser = OutputsBrowser()
        """What the table lists: the stored outputs, or (F3) the conversation."""
        self._other: Browser = ConversationBrowser()
        self.hints = hints or {}
        self.labels = labels or {}
        """ref id → `bash pytest -q`: the tool column names the call (blob_rows.call_labels)."""
        self.clock = clock or (lambda: wall_clock())
        self.rows: dict[str, BlobRow] = {}
        self.search_text = ""
        self.opened: BlobRow | None = None
        self.searches = 0
        """Searches whose results reached the table (tests and the benchmark wait on it)."""
        self._open_ref = open_ref
        self._prompt_mode = "grep"
        self._search_timer: Timer | None = None
        self._grep_pattern: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="blobs-title")
        with Horizontal(id="blobs-bar"):
            yield Select(SCOPES, value=self.scope, allow_blank=False, id="blobs-scope")
            yield Input(placeholder=self.browser.placeholder, id="blobs-search")
        table: DataTable[str | Text] = DataTable(id="blobs-table", cursor_type="row", zebra_stripes=True)
        table.add_columns(*COLUMNS)
        yield table
        yield Static("", id="viewer-title")
        yield BlobViewer(id="viewer")
        yield Input(id="viewer-prompt")
        # A fixed key bar, not a Footer: a Footer rebuilds a widget per key on every focus
        # change, which made each search and each open ~100 ms slower.
        yield Static(Text(KEYS), id="blobs-keys")

    @property
    def viewer(self) -> BlobViewer:
        return self.query_one(BlobViewer)

    @property
    def table(self) -> DataTable[str | Text]:
        return self.query_one(DataTable)

    def on_mount(self) -> None:
        self.table.focus()
        self._title()
        self._viewer_title()
        self.load_rows()

    # -- listing and search --------------------------------------------------------------------

    def _filter(self) -> dict[str, str | None]:
        return scope_filter(self.scope, self.session_id, self.project)

    @property
    def source(self) -> Source:
        return self.browser.source

    @work(exclusive=True, group="blobs-rows", exit_on_error=False)
    async def load_rows(self) -> None:
        """The scope's rows (newest first), or what the search finds in them."""
        browser = self.browser
        try:
            rows = await browser.rows(self.store, self.search_text, self.scope, self._filter())
        except Exception as exc:
            log.info("%s listing failed", browser.source, exc_info=True)
            self.app.notify(f"Search failed: {one_line(exc, 160)}", severity="warning")
            return
        await self._show(rows)
        if self._open_ref is not None and browser.source == "outputs":
            ref, self._open_ref = self._open_ref, None
            await self.open_ref(ref)

    async def _show(self, rows: list[BlobRow]) -> None:
        table = self.table
        now = self.clock()
        table.clear()
        self.rows = {}
        for row in rows:
            key = row_key(row)
            if key in self.rows:
                continue
            self.rows[key] = row
            cells = row.cells(now)
            if (label := self.labels.get(row.ref.id)) is not None and not row.transcript:
                cells = (cells[0], label, *cells[2:])
            table.add_row(*cells, key=key)
        self.searches += 1
        self._title()

    def _title(self) -> None:
        title = self.browser.title(SCOPE_LABELS[self.scope], self.search_text, len(self.rows))
        self.query_one("#blobs-title", Static).update(Text(title))

    @on(Select.Changed, "#blobs-scope")
    def _scope_changed(self, event: Select.Changed) -> None:
        if event.value != self.scope and isinstance(event.value, str):
            self.scope = event.value  # type: ignore[assignment]  # the Select offers only SCOPES values
            self.load_rows()

    def action_cycle_scope(self) -> None:
        values = [value for _, value in SCOPES]
        self.query_one("#blobs-scope", Select).value = values[(values.index(self.scope) + 1) % len(values)]

    def action_toggle_source(self) -> None:
        self.browser, self._other = self._other, self.browser
        self.query_one("#blobs-search", Input).placeholder = self.browser.placeholder
        self.load_rows()

    def action_focus_search(self) -> None:
        self.query_one("#blobs-search", Input).focus()

    @on(Input.Changed, "#blobs-search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.search_text = event.value
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_DELAY, self.load_rows)

    @on(Input.Submitted, "#blobs-search")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.search_text = event.value
        if self._search_timer is not None:
            self._search_timer.stop()
        self.load_rows()
        self.table.focus()

    # -- opening -------------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#blobs-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row != self.table.cursor_row:
            return  # stale: the cursor moved on (e.g. to the ref the screen was opened at)
        row = self.rows.get(str(event.row_key.value))
        if row is not None and row is not self.opened:
            self.open_row(row)

    @on(DataTable.RowSelected, "#blobs-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.viewer.focus()

    async def open_ref(self, ref: str) -> None:
        """Open `ref` (a short id or a ctx:// URI) whether or not the table lists it."""
        row = self.rows.get(ref)
        if row is None:
            try:
                row = from_resolved(await self.store.results.resolve(ref))
            except Exception as exc:  # noqa: BLE001 - a ref gone by GC, a typo: one line
                self.app.notify(f"Cannot open {ref}: {one_line(exc, 160)}", severity="warning")
                return
        if row_key(row) in self.rows:
            self.table.move_cursor(row=self.table.get_row_index(row_key(row)))
        self.open_row(row)
        self.viewer.focus()

    def open_row(self, row: BlobRow) -> None:
        self.opened = row
        self._grep_pattern = None
        if row.transcript:
            self.open_transcript(row)
            return
        self.viewer.open(
            StoreBlob(self.store.results, row.ref), hint=self.hints.get(row.ref.id), line=row.line
        )
        self._viewer_title()
        pattern = terms_pattern(self.search_text) if row.line is not None else None
        if pattern:
            self.grep(pattern, quiet=True)

    @work(exclusive=True, group="blobs-transcript", exit_on_error=False)
    async def open_transcript(self, row: BlobRow) -> None:
        """Render the row's session transcript and open it at the row's message."""
        try:
            source = await TranscriptSource.load(self.store.transcript, row.session_id)
        except Exception as exc:
            log.info("opening a transcript failed", exc_info=True)
            self.app.notify(f"Cannot open the transcript: {one_line(exc, 160)}", severity="warning")
            return
        if self.opened is not row:
            return  # another row was opened meanwhile
        self.viewer.open(source, line=source.line_of(row.seq))
        self._viewer_title()
        pattern = terms_pattern(self.search_text) if row.seq is not None else None
        if pattern:
            self.grep(pattern, quiet=True)

    def _viewer_title(self, extra: str = "") -> None:
        row = self.opened
        if row is not None and row.transcript:
            at = f" at message #{row.seq}" if row.seq else ""
            text = f"transcript of {row.session_id}{at} · {row.project}{extra}"
        elif row is None:
            text = "No output open: move through the table to open one."
        else:
            ref = row.ref
            reads = f" · read {row.access_count}×" if row.access_count is not None else ""
            text = (
                f"{ref.id} · {ref.tool_name} · {formatting.size(ref.byte_size)} · "
                f"{formatting.line_count(ref.line_count)}{reads}{extra}"
            )
        self.query_one("#viewer-title", Static).update(Text(text))

    # -- viewer prompt: grep and go to line ----------------------------------------------------

    def action_prompt(self, mode: str) -> None:
        if self.opened is None:
            self.app.notify("Open an output first (move through the table).")
            return
        self._prompt_mode = mode
        prompt = self.query_one("#viewer-prompt", Input)
        prompt.placeholder = (
            "grep: a regular expression, Enter searches, Escape cancels"
            if mode == "grep"
            else f"go to line (1–{formatting.count(self.viewer.line_count)})"
        )
        prompt.value = ""
        prompt.add_class("-open")
        prompt.focus()

    @on(Input.Submitted, "#viewer-prompt")
    def _prompt_submitted(self, event: Input.Submitted) -> None:
        self._close_prompt()
        # A regex keeps its spaces (`error ` is not `error`); a line number does not need them.
        value = event.value if self._prompt_mode == "grep" else event.value.strip()
        if not value.strip():
            return
        if self._prompt_mode == "line":
            if not value.isdigit():
                self.app.notify(f"{value!r} is not a line number.", severity="warning")
                return
            self.viewer.goto(int(value))
        else:
            self.grep(value)

    def _close_prompt(self) -> None:
        self.query_one("#viewer-prompt", Input).remove_class("-open")
        self.viewer.focus()

    @work(exclusive=True, group="blobs-grep", exit_on_error=False)
    async def grep(self, pattern: str, quiet: bool = False) -> None:
        viewer = self.viewer
        source = viewer.source
        if source is None:
            return
        self._grep_pattern = pattern
        self._viewer_title(" · searching…")
        try:
            numbers, cut = await source.grep(pattern)
        except Exception as exc:  # noqa: BLE001 - a bad regex says how to fix it
            self._viewer_title()
            self.app.notify(one_line(exc, 200), severity="warning")
            return
        if viewer.source is not source:
            return  # another output was opened meanwhile
        viewer.set_matches(pattern, numbers)
        if not numbers:
            self._viewer_title(" · no match")
            if not quiet:
                self.app.notify(f"No line matches {pattern!r}.")
        elif cut:
            self._viewer_title(f" · first {formatting.count(len(numbers))} matches")

    @on(BlobViewer.MatchMoved)
    def _match_moved(self, event: BlobViewer.MatchMoved) -> None:
        self._viewer_title(f" · match {event.index + 1}/{formatting.count(event.total)}")

    # -- copying and leaving -------------------------------------------------------------------

    def _target(self) -> BlobRow | None:
        if self.opened is not None:
            return self.opened
        table = self.table
        if table.row_count:
            key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
            return self.rows.get(str(key))
        return None

    def action_copy(self, uri: bool) -> None:
        row = self._target()
        if row is None:
            self.app.notify("Nothing to copy: no output is selected.")
            return
        text = row.uri if uri else row.ref.id
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied {text}", title="Clipboard")

    def action_back(self) -> None:
        prompt = self.query_one("#viewer-prompt", Input)
        if prompt.has_class("-open"):
            self._close_prompt()
            return
        self.app.pop_screen()
