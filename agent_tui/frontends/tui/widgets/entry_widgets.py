"""Which widget draws which chat entry: the one place that knows every kind of item.

Apart from chat_items.py because the items themselves live in several modules (thinking.py
builds on ChatItem), and a dispatcher inside chat_items would have to import them back.
"""

from __future__ import annotations

from typing import Any

from agent_tui.frontends.tui.transcript import (
    AgentEntry,
    Entry,
    NoticeEntry,
    OutputEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)
from agent_tui.frontends.tui.widgets.chat_items import (
    AgentItem,
    ChatItem,
    NoticeItem,
    OutputItem,
    ToolLine,
    UserItem,
)
from agent_tui.frontends.tui.widgets.compaction_item import CompactionItem
from agent_tui.frontends.tui.widgets.thinking import ThinkingItem


def item_for(entry: Entry) -> ChatItem[Any]:
    if isinstance(entry, UserEntry):
        return UserItem(entry)
    if isinstance(entry, AgentEntry):
        return AgentItem(entry)
    if isinstance(entry, ToolEntry):
        return ToolLine(entry)
    if isinstance(entry, NoticeEntry):
        if getattr(entry.compaction, "record", None) is not None:
            return CompactionItem(entry)
        return NoticeItem(entry)
    if isinstance(entry, OutputEntry):
        return OutputItem(entry)
    if isinstance(entry, ThinkingEntry):
        return ThinkingItem(entry)
    raise TypeError(f"no widget for {type(entry).__name__}")
