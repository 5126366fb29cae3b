"""The chat's compaction line, which opens that compaction's record.

A plain notice said "/context lists what it cleared": the user had to find it among every other
compaction. This line is the record's handle: a click, or Enter once Shift+Tab reaches it,
opens the record view (frontends/tui/screens/compaction_record.py) for exactly this compaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding
from textual.message import Message

from agent_tui.frontends.tui.widgets.chat_items import NoticeItem


class CompactionItem(NoticeItem):
    can_focus = True
    BINDINGS: ClassVar = [Binding("enter", "open_record", "Open the record", show=False)]

    @dataclass
    class OpenRecord(Message):
        """Open this compaction's record (the App pushes the record view)."""

        result: object

    def action_open_record(self) -> None:
        self.post_message(self.OpenRecord(self.entry.compaction))

    def on_click(self) -> None:
        self.action_open_record()
