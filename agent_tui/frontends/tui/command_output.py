"""Where a slash command's output goes: a block in the tab's chat that scrolls with it.

Toasts vanish and cut long lists (`/tools` showed 6 of 11 tools); Claude Code prints such
output in the transcript, and so do we. Every command that has something to show — a listing,
a status, a confirmation — calls `show(view, "/name", text)`; a mistake in how a command was
typed stays a warning toast (nothing to keep). The block is the chat's, not the history's: the
model never sees it and a resumed session does not replay it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.frontends.tui.command_host import TabCommandHost
    from agent_tui.frontends.tui.transcript import Level


def show(view: TabCommandHost, command: str, text: str, level: Level = "info") -> None:
    """Print `text` under `command` at the bottom of the tab's chat (the tab schedules it, so
    sync and async callers alike keep their order)."""
    view.show_output(command, text, level)
