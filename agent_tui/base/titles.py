"""A session's title when the user gave it none: its first typed request's first line. The store
writes it with the first message; the session, the tab and every front end show the same one."""

from __future__ import annotations

from collections.abc import Iterable

from agent_tui.base.messages import Message
from agent_tui.base.user_command_text import typed_text

TITLE_CHARACTERS = 60


def title_from(messages: Iterable[Message]) -> str | None:
    """The first typed request's first line (cut to `TITLE_CHARACTERS`), or None without one."""
    for message in messages:
        text = typed_text(message.content)
        if message.role == "user" and message.kind == "chat" and text.strip():
            line = text.strip().splitlines()[0].strip()
            return line if len(line) <= TITLE_CHARACTERS else line[: TITLE_CHARACTERS - 1] + "…"
    return None
