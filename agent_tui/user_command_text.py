"""How a `!command` the user ran is written into the conversation, and read back out of it.

The model reads it as one user message (who ran what, the ref, then the output's view); the chat
after a resume, and a session's title, must see a command the user ran, not words the user typed.
Writer and reader live here together so they cannot drift; plain text functions, usable from
the store, the agent and the UI alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEAD = "[The user ran this command in the workspace: `"
_PARSE = re.compile(re.escape(_HEAD) + r"(?P<command>.*?)`(?: · output ref (?P<ref>[\w-]+))?\](?:\n|$)", re.S)


@dataclass(frozen=True)
class UserCommandText:
    """A `!command` as the conversation holds it."""

    command: str
    ref: str | None
    """Its stored output (None when it could not be stored)."""
    output: str
    """The view of the output the model was given."""


def user_command_text(command: str, ref: str | None, output: str) -> str:
    """What the model reads: who ran what, then the output's view (with its ref and status)."""
    where = f" · output ref {ref}" if ref is not None else ""
    return f"{_HEAD}{command}`{where}]\n{output or '(no output)'}"


def parse_user_command(text: str | None) -> UserCommandText | None:
    """The command a user message records, or None for a message the user typed."""
    if not text or not text.startswith(_HEAD):
        return None
    found = _PARSE.match(text)
    if found is None:
        return None
    return UserCommandText(found["command"], found["ref"], text[found.end() :])
