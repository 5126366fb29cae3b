"""Find in the chat (Ctrl+F): a one-line bar above the input that searches the conversation shown.

The chat mounts widgets only for its newest entries, so the search runs over the entries (values),
newest first; a hit that is not mounted yet is mounted, then scrolled to and marked. Enter or
Down goes to the next older match, Up to the newer one, Escape closes the bar and gives the input
its focus back. Home / End (on an empty input, or Ctrl+Home / Ctrl+End) jump to the first and
last message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input

if TYPE_CHECKING:
    from agent_tui.frontends.tui.transcript import Entry
    from agent_tui.frontends.tui.widgets.chat import ChatPane


def entry_text(entry: Entry) -> str:
    """What of an entry the search looks at (what its widget shows, folded or not)."""
    parts = [getattr(entry, name, "") for name in ("text", "command", "name", "arguments", "detail", "body")]
    return "\n".join(p for p in parts if isinstance(p, str))


def matches(entries: list[Entry], query: str) -> list[int]:
    """Indices of the entries holding `query` (case-insensitive), newest first."""
    needle = query.casefold()
    if not needle:
        return []
    return [i for i in range(len(entries) - 1, -1, -1) if needle in entry_text(entries[i]).casefold()]


class FindBar(Input):
    """The search field; the session view owns it and the chat it searches."""

    BINDINGS: ClassVar = [
        Binding("escape", "close", "Close", show=False),
        Binding("down", "step(1)", "Older match", show=False),
        Binding("up", "step(-1)", "Newer match", show=False),
    ]

    @dataclass
    class Closed(Message):
        bar: FindBar

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="Find in the chat · Enter/↓ older · ↑ newer · Esc closes", id=id)
        self.chat: ChatPane | None = None
        self.hits: list[int] = []
        self.at = -1
        self.display = False

    def open(self, chat: ChatPane) -> None:
        self.chat = chat
        self.display = True
        self.focus()
        if self.value:
            self._search()

    def action_close(self) -> None:
        self._mark(None)
        self.display = False
        self.post_message(self.Closed(self))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search()

    @on(Input.Submitted)
    async def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.action_step(1)

    def _search(self) -> None:
        self.hits = matches(self.chat.entries, self.value) if self.chat is not None else []
        self.at = -1
        if self.hits:
            self.run_worker(self.action_step(1), group="find", exclusive=True)
        else:
            self._mark(None)
            self.border_subtitle = "no match" if self.value else ""

    async def action_step(self, step: int) -> None:
        if not self.hits or self.chat is None:
            return
        self.at = max(0, min(len(self.hits) - 1, self.at + step))
        self.border_subtitle = f"{self.at + 1}/{len(self.hits)}"
        item = await self.chat.reveal(self.hits[self.at])
        self._mark(item)

    def _mark(self, item: Any) -> None:
        if self.chat is None:
            return
        for old in self.chat.query(".-found"):
            old.remove_class("-found")
        if item is not None:
            item.add_class("-found")
