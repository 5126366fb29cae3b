"""What an approval must say about how a command will run, besides the command itself.

A `bash` call with `background: true` returns at once and keeps running after the answer: a dev
server, a watcher. Whoever approves it should know that before saying yes, wherever they are
asked (the TUI's dialog, an editor over ACP), so every approver takes the sentence from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

BACKGROUND = "runs in the background: keeps running after the call returns"


def background_notice(tool: str, arguments: Mapping[str, Any]) -> str | None:
    """The sentence for a command that will run in the background; None for any other call."""
    # The same test bash applies: only a real `true` starts it in the background.
    return BACKGROUND if tool == "bash" and arguments.get("background") is True else None
