"""The chat pane: the whole transcript as values, widgets only for the newest part.

A 2 000-message session opens as fast as a 20-message one because only the last `WINDOW`
entries get widgets; scrolling within a page of the top mounts older ones above in small batches
(keeping the view where it was), so the cost is paid only by someone who reads that far back,
and a batch never holds up a key for long.

The same holds while a session grows: every widget in the pane is laid out again when the reply
at the bottom grows, so while the view follows the bottom only the entries that fill the last
`KEEP_SCREENS` screens stay mounted; the older are unmounted (their entries stay, and what a
reader unfolded stays unfolded; scrolling up or a find mounts them again). Kept by height, not
by count: 48 kept entries made a reply at turn 100 cost 1.3-1.6× what it cost at turn 2, as every
layout walked them all, while a count small enough to be cheap would not fill the screen with
one-line tool calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent_tui.frontends.tui import formatting
from agent_tui.frontends.tui.textual_compat import release_render_caches
from agent_tui.frontends.tui.widgets.chat_items import AgentItem, ChatItem, ToolLine
from agent_tui.frontends.tui.widgets.chat_place import PlaceMap, ReadingPlace, halt_scroll
from agent_tui.frontends.tui.widgets.entry_widgets import item_for

if TYPE_CHECKING:
    from agent_tui.frontends.tui.transcript import AgentEntry, Entry, ThinkingEntry, ToolEntry
    from agent_tui.frontends.tui.widgets.thinking import ThinkingItem

WINDOW = 16
"""Entries mounted when a session opens (a screenful; more follow if they do not fill it)."""
CHUNK = 30
"""Older entries `mount_older` mounts by default."""
BATCH = 12
"""Older entries mounted per refresh while the view is within a page of the top: about a page
of them, as each batch lays out every mounted entry again (4 made a PageUp lay out ~4 times)."""
KEEP_SCREENS = 1.5
"""Rows of entries kept mounted below the unmounted ones while the view follows the bottom, in
heights of the pane: more than a screen, so scrolling up a little needs no mount."""
TRIM_STEP = 8
"""Entries past those kept before any go: one removal per `TRIM_STEP` entries added, not per entry."""
MIN_KEPT = 4
"""Entries kept however tall (one long reply can fill the rows by itself)."""
PLACE_ROUNDS = 40
"""Most refreshes a resize's restore waits for the layout to stop changing (it takes 2-4)."""


class EarlierHint(Static):
    """The first line of the pane while older entries are not mounted yet."""


class Welcome(Static):
    """A new session's first screen (core/welcome.py), above the conversation; it scrolls away."""


class ChatPane(VerticalScroll):
    """A scrolling list of chat items, lazily mounted from the top."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Entry] = []
        self._first = 0  # index in `entries` of the first mounted entry
        self._items: list[ChatItem[Any]] = []  # mounted widgets, aligned with entries[_first:]
        self._loading_older = False
        self._unfolded: set[int] = set()
        """`id` of the unmounted entries whose widget was unfolded, to unfold them again."""
        self._following = True
        """Only while the view follows the bottom may old widgets go. Scrolling up away from the
        bottom stops it; reaching the bottom resumes it. Decided when the view scrolls, since
        the geometry can lag a burst of new entries on a busy machine."""
        self._keeping_view = False
        self._read_anchor: ReadingPlace | None = None
        self._place_map: PlaceMap | None = None
        self._place_layout: tuple[Any, ...] | None = None
        """Where a reader is, kept across a resize and while older entries go in above."""
        self._resized_to: Any = None
        """The size `on_resize` last saw: a scroll the layout makes after a resize, before
        `on_resize` runs, must not replace the anchor with a place measured mid-reflow."""
        self._keeping_place: ReadingPlace | None = None
        """The place being restored after a resize, until the layout settles (see on_resize)."""
        self._place_round = 0
        self._place_chain = 0
        self._place_seen: tuple[Any, ...] | None = None
        self.places_kept = 0
        """Resizes after which the reading place was restored on a settled layout (tests wait
        for it to grow instead of sleeping)."""
        self._hint = EarlierHint("")
        self.welcome = Welcome("")
        self.welcome.display = False

    def compose(self) -> ComposeResult:
        yield self.welcome
        yield self._hint

    def show_welcome(self, text: str | None) -> None:
        """Show (or with None, hide) the welcome block at the top."""
        if text is not None:
            from rich.text import Text

            self.welcome.update(Text(text))
            self.welcome.border_title = "agent-tui"
        self.welcome.display = text is not None

    def on_mount(self) -> None:
        self.anchor()
        self._update_hint()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._rebuild_items())

    def _rebuild_items(self) -> None:
        for item in self._items:
            item.rebuild()

    @property
    def mounted_count(self) -> int:
        return len(self._items)

    @property
    def unmounted_count(self) -> int:
        return self._first

    def _update_hint(self) -> None:
        self._hint.display = self._first > 0
        if self._first:
            self._hint.update(f"↑ {formatting.count(self._first)} earlier entries · scroll up to load them")

    async def load(self, entries: list[Entry]) -> None:
        """Show a whole transcript (replacing what was there); mounts only the newest part."""
        await self.remove_children([w for w in self.children if w not in (self._hint, self.welcome)])
        self._place_map = self._place_layout = None
        release_render_caches()
        self.entries = list(entries)
        self._unfolded.clear()  # ids of entries gone: a new entry may reuse one
        self._first = max(0, len(self.entries) - WINDOW)
        self._items = [item_for(entry) for entry in self.entries[self._first :]]
        if self._items:
            await self.mount_all(self._items)
        self._update_hint()
        self._following = True
        self.anchor()
        self.call_after_refresh(self._fill_viewport)

    async def _fill_viewport(self) -> None:
        """Mount older entries until the pane can scroll (short items: tool lines, notices);
        without a scrollbar the user could never reach the top to ask for more."""
        if not self.is_mounted:
            return
        if self._first and self.virtual_size.height <= self.size.height:
            await self.mount_older()
            # Check again once the new items are laid out (awaiting a refresh here would wait
            # on this very widget's message queue).
            self.call_after_refresh(self._fill_viewport)
        elif self._following:  # right after a load: the newest, unless the user scrolled up since
            self.scroll_end(animate=False, immediate=True)

    @overload
    async def add(self, entry: AgentEntry) -> AgentItem: ...
    @overload
    async def add(self, entry: ToolEntry) -> ToolLine: ...
    @overload
    async def add(self, entry: ThinkingEntry) -> ThinkingItem: ...
    @overload
    async def add(self, entry: Entry) -> ChatItem[Any]: ...
    async def add(self, entry: Entry) -> ChatItem[Any]:
        """Append an entry at the bottom and return its widget."""
        self.entries.append(entry)
        item = item_for(entry)
        self._items.append(item)
        if self.is_attached and self.is_mounted:  # events can still arrive while closing
            await self.mount(item)
            await self._unmount_oldest()
        return item

    async def add_before(self, item: ChatItem[Any], entry: Entry) -> ChatItem[Any]:
        """Put an entry just above a mounted item (at the bottom when it is gone)."""
        index = self._index_of(item)
        if index is None or not (self.is_attached and self.is_mounted):
            return await self.add(entry)
        new = item_for(entry)
        self.entries.insert(index, entry)
        self._items.insert(index - self._first, new)
        await self.mount(new, before=item)
        return new

    def _kept_count(self) -> int:
        """How many of the newest mounted entries fill `KEEP_SCREENS` of the pane. An entry not
        laid out yet counts as one row, so a burst of adds is bounded before the layout runs."""
        wanted = KEEP_SCREENS * self.size.height
        rows = 0
        for kept, item in enumerate(reversed(self._items), 1):
            rows += max(1, item.virtual_region_with_margin.height)
            if rows >= wanted and kept >= MIN_KEPT:
                return kept
        return len(self._items)

    async def _unmount_oldest(self) -> None:
        """Keep the mounted part bounded while the user follows the bottom; someone reading
        older entries keeps them (they scrolled there, the batch mounting put them there)."""
        reading = not self._following or self.scroll_y < self.max_scroll_y - self.size.height
        if self._loading_older or reading or not self.size.height:
            return
        excess = len(self._items) - self._kept_count()
        if excess < TRIM_STEP:
            return
        gone, self._items = self._items[:excess], self._items[excess:]
        self._unfolded.update(id(item.entry) for item in gone if getattr(item, "expanded", False))
        self._first += excess
        self._update_hint()
        self._place_map = self._place_layout = None  # it holds the items: they would live on
        await self.remove_children(gone)
        release_render_caches()  # else Textual keeps what the last 1 024 of them rendered

    def _item_for(self, entry: Entry) -> ChatItem[Any]:
        """A widget for an older entry, unfolded again if it was when it went."""
        item = item_for(entry)
        if id(entry) in self._unfolded:
            self._unfolded.discard(id(entry))
            item.expanded = True  # type: ignore[attr-defined]  # the items that fold all have it
            item.add_class("-expanded")
        return item

    def replace(self, item: ChatItem[Any], entry: Entry) -> None:
        """Give a mounted item a new entry (a tool call that finished, a reply that grew)."""
        index = self._index_of(item)
        if index is not None:
            self.entries[index] = entry
        item.set_entry(entry)

    def commit(self, item: AgentItem) -> None:
        """A streamed reply is complete: render it fully and store its final text (already drawn
        when nothing streamed since the last render: drawing it again would only lay out every
        mounted item once more)."""
        if item.pending:
            item.flush()
        index = self._index_of(item)
        if index is not None:
            self.entries[index] = item.entry

    def _index_of(self, item: ChatItem[Any]) -> int | None:
        try:
            return self._first + self._items.index(item)
        except ValueError:
            return None

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_bottom = new_value >= self.max_scroll_y - 1
        # The outer size: the content size also changes when the scrollbar comes or goes, which
        # sends no Resize, and would keep the anchor stale for good.
        resizing = self._resized_to is not None and self.outer_size != self._resized_to
        held = self._keeping_view or self._keeping_place is not None or resizing
        if new_value < old_value and not at_bottom:
            # Up and away from the bottom: the user. The layout pulling the view up when the
            # content shrinks (a reply's final rendering is shorter than its streamed text)
            # leaves it at the bottom, and the anchor keeps following without telling us.
            self._following = False
        elif not held and at_bottom:
            # Not while a resize reflows: a wider pane is shorter, the layout clamps the offset
            # to its new end before `on_resize` runs, and a reader near the end would be taken
            # for one following the bottom (and lose their place).
            self._following = True
        if self._near_top() and not self._loading_older and self.is_mounted:
            self._loading_older = True
            self.call_after_refresh(self._mount_older_step)
        if not held:
            self._read_anchor = self.reading_place()

    def reading_place(self, y: float | None = None) -> ReadingPlace | None:
        """Where the view starts (or offset `y` would): the item at its top, how far into it."""
        # Taken on every scroll frame: the items' rows are read again only when the mounted
        # items or the layout changed (a height that changes changes the virtual size).
        layout = (self._first, len(self._items), self._items[:1], self.virtual_size, self.size)
        if self._place_map is None or layout != self._place_layout:
            self._place_map, self._place_layout = PlaceMap(self._items), layout
        return self._place_map.place_at(self.scroll_y if y is None else y)

    def on_resize(self) -> None:
        """A reader keeps their place across a resize (the text reflows; without this the same
        scroll offset lands elsewhere). Following the bottom needs nothing: the anchor does it.

        The reflow takes more than one refresh (items re-measure at the new width, then the
        pane's virtual size follows, and a scroll clamped meanwhile would move the anchor), so
        the place is put back after every refresh until two in a row find the layout and the
        view unchanged; until then the scrolling the layout does is not taken for the reader's."""
        self._resized_to = self.outer_size
        if self._keeping_place is None:
            if self._following or self._read_anchor is None:
                return
            self._keeping_place = self._read_anchor
        self._place_round = 0
        self._place_seen = None
        self._place_chain += 1  # a resize during a restore restarts it: one chain at a time
        self.call_after_refresh(self._restore_place, self._place_chain)

    def _restore_place(self, chain: int) -> None:
        place = self._keeping_place
        if place is None or chain != self._place_chain:
            return
        if not self._apply(place):
            self._keeping_place = self._read_anchor = None
            return
        seen = (self.size, self.virtual_size, place.item.virtual_region, self.scroll_y)
        self._place_round += 1
        if seen != self._place_seen and self._place_round < PLACE_ROUNDS:
            self._place_seen = seen
            self.call_after_refresh(self._restore_place, chain)
            return
        self._keeping_place = None
        self._read_anchor = place
        self.places_kept += 1

    def _apply(self, place: ReadingPlace, animate: bool = False) -> bool:
        """Scroll so the view starts at `place` (False when its item is gone)."""
        if place.item not in self._items or not place.item.is_mounted:
            return False
        self._keeping_view = True
        try:
            self.scroll_to(y=place.offset(), animate=animate, immediate=True)
        finally:
            self._keeping_view = False
        return True

    def _near_top(self) -> bool:
        """Within a page of the top with older entries to mount. Never while following the
        bottom: what is kept then is little more than a screen, and the bottom of it is within a
        page of its top, so each growth of the reply would mount entries the next trim drops."""
        return bool(self._first) and not self._following and self.scroll_y <= self.size.height

    async def _mount_older_step(self) -> None:
        """Mount one small batch, then another after the next refresh while the view is still
        within a page of the top: keys are handled between batches, so scrolling up through
        a long session never stalls on one big mount."""
        await self.mount_older(BATCH)
        if self._near_top() and self.is_mounted:
            self._loading_older = True
            self.call_after_refresh(self._mount_older_step)

    async def mount_older(self, count: int = CHUNK) -> int:
        """Mount up to `count` older entries above the mounted ones, keeping the view still."""
        try:
            count = min(count, self._first)
            if count <= 0:
                return 0
            start = self._first - count
            items = [self._item_for(entry) for entry in self.entries[start : self._first]]
            goal = None if self._following else halt_scroll(self, self.reading_place)
            await self.mount_all(items, after=self._hint)
            self._items[:0] = items
            self._first = start
            self._update_hint()
            self.call_after_refresh(self._keep_view, goal)
            return count
        finally:
            self._loading_older = False

    async def reveal(self, index: int) -> ChatItem[Any] | None:
        """Mount entry `index` if it is not yet, and scroll it into the middle of the view."""
        if index < self._first:
            self._following = False
            await self.mount_older(self._first - index)
        position = index - self._first
        if not 0 <= position < len(self._items):
            return None
        item = self._items[position]
        self._following = False
        self.call_after_refresh(self.scroll_to_widget, item, animate=False, center=True)
        return item

    async def jump_top(self) -> None:
        """Home: the first message (every older entry mounted first)."""
        self._following = False
        if self._first:
            await self.mount_older(self._first)
        self.call_after_refresh(self.scroll_home, animate=False, immediate=True)

    def jump_end(self) -> None:
        """End: the newest message, following again (a reading place a resize was restoring is
        dropped: the slash menu closing after `/hooks` is such a resize)."""
        self._keeping_place = self._read_anchor = None
        self._place_chain += 1
        self._following = True
        self.scroll_end(animate=False, immediate=True)

    def _keep_view(self, goal: ReadingPlace | None = None) -> None:
        """Older entries went in above a reader: put the view back where they were reading.
        A place, not a shift by the height that went in: a resize between the mount and this
        would count the reflow as growth, and a resize's restore may already have put the place
        back (applying a place twice is harmless). A scroll `halt_scroll` stopped for the mount
        goes on to its `goal`."""
        if self._following:
            return  # following the bottom: Textual's anchor keeps the end in view
        place = self._keeping_place or self._read_anchor
        if place is not None and self._apply(place) and goal is not None:
            self._apply(goal, animate=True)
