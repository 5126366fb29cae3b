"""The folded "thinking" block a reasoning model's reply starts with.

While the model thinks, the block shows a spinner, the time so far and the last lines of the
thinking (a live tail, so a minute of reasoning is not a minute of bare spinner); once it
answers, one dimmed line — `▸ thought for 4.2 s · 812 tokens` — that Enter or a click unfolds
to the whole text, like a tool line. Only a streaming block ticks: a finished one renders when
it changes, so a session full of them costs what one of plain replies does.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text
from textual.binding import Binding

from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui import formatting
from agent_tui.frontends.tui.transcript import ThinkingEntry
from agent_tui.frontends.tui.widgets.chat_items import ChatItem, spinner_frame

if TYPE_CHECKING:
    from textual.timer import Timer

TAIL_LINES = 3
"""Lines of the thinking shown while it streams."""
TICK = 0.1
"""Seconds between redraws of a streaming block (time, spinner and tail)."""


class ThinkingItem(ChatItem[ThinkingEntry]):
    """One step's reasoning; `append` streams into it, `answered` stops its clock and the view
    gives it the final entry (tokens and duration as the session measured them)."""

    can_focus = True
    BINDINGS: ClassVar = [Binding("enter", "toggle_reasoning", "Unfold", show=False)]

    clock = staticmethod(time.monotonic)
    """Where the live elapsed time comes from (tests freeze it)."""

    def __init__(self, entry: ThinkingEntry) -> None:
        super().__init__(entry)
        self.expanded = False
        self._parts: list[str] = [entry.text]
        self._started = self.clock()
        self._answered_at: float | None = None
        self._ticker: Timer | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self._sync_ticker()

    @property
    def text(self) -> str:
        if len(self._parts) > 1:  # joined once per redraw, not once per delta ever received
            self._parts = ["".join(self._parts)]
        return self._parts[0]

    @property
    def streaming(self) -> bool:
        return not self.entry.done and self._answered_at is None

    def append(self, fragment: str) -> None:
        self._parts.append(fragment)  # drawn by the ticker, not per delta

    def answered(self) -> None:
        """The answer began: the tail gives way to `thought for …` (totals follow)."""
        if self._answered_at is None:
            self._answered_at = self.clock()
            self._sync_ticker()
            self.rebuild()

    def finished(self, tokens: int, duration: float | None = None) -> ThinkingEntry:
        """The entry this block ends with: the whole text and the session's totals (`duration`
        None: the step ended early, so the block's own clock says how long it thought)."""
        if duration is None:
            duration = (self._answered_at or self.clock()) - self._started
        return replace(self.entry, text=self.text, tokens=tokens, duration=duration, done=True)

    def set_entry(self, entry: ThinkingEntry) -> None:
        self._parts = [entry.text]
        super().set_entry(entry)
        if self.is_mounted:
            self._sync_ticker()

    def _sync_ticker(self) -> None:
        if self.streaming and self._ticker is None:
            self._ticker = self.set_interval(TICK, self.rebuild)
        elif not self.streaming and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def action_toggle_reasoning(self) -> None:
        if self.streaming:
            return  # the tail already shows it; the whole text is there once it finished
        self.expanded = not self.expanded
        self.set_class(self.expanded, "-expanded")
        self.rebuild()

    def on_click(self) -> None:
        self.action_toggle_reasoning()

    def build(self) -> RenderableType:
        style = self.get_component_rich_style("chat--detail")
        body_style = self.get_component_rich_style("chat--body")
        if self.streaming:
            now = self.clock()
            head = Text(
                f"{spinner_frame(now)} thinking · {formatting.duration(now - self._started)}", style=style
            )
            tail = self._tail()
            return Group(head, Padding(Text(visible(tail), style=body_style), (0, 0, 0, 2))) if tail else head
        entry = self.entry
        if entry.done:
            seconds = entry.duration
        else:
            seconds = (self._answered_at or self._started) - self._started
        parts = [f"thought for {formatting.duration(seconds)}"]
        if entry.tokens:
            parts.append(f"{formatting.count(entry.tokens)} tokens")
        marker = "▾" if self.expanded else "▸"
        head = Text(f"{marker} " + " · ".join(parts), style=style)
        if not self.expanded:
            return head
        body = self.text.strip() or "(the provider sent this thinking redacted)"
        return Group(head, Padding(Text(visible(body), style=body_style), (0, 0, 0, 2)))

    def _tail(self) -> str:
        """The last lines of the thinking as they wrap in this block's width."""
        width = max(self.size.width - 2, 20)
        room = TAIL_LINES * width
        # Only the end matters: a long thinking costs each redraw no more than a short one.
        text = self.text
        window = text[-2 * room :]
        collapsed = " ".join(window.split())
        flat = collapsed[-room:]
        if not flat:
            return ""
        lines = [line.plain for line in Text(flat).wrap(self.app.console, width)]
        shown = lines[-TAIL_LINES:]
        if len(text) > len(window) or len(collapsed) > len(flat) or len(lines) > TAIL_LINES:
            shown[0] = "…" + shown[0].lstrip()  # it goes on above
        return "\n".join(shown)
