"""Textual messages that carry the agent's events from a turn worker to its session view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from agent_tui.agent.events import AgentEvent


class AgentEventMessage(Message):
    """One event of a running turn or compaction, relayed in order."""

    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event
