"""How what the user sent is written into the conversation, and read back out of it.

The model reads one user message: a `!command` as who ran what, the ref and the output's view; a
custom command as its expanded prompt; a prompt with the files it `@`-mentioned and the context
hooks added appended. Whatever shows the user's words back — the chat after a resume, /rewind's
list and the input it refills, a fork, a session's title — must show what the user typed, not
what the model was given (`typed_text`). Writers and reader live here together so they cannot
drift; plain text functions, usable from the store, the agent and the UI alike.
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


_BLOCK = re.compile(
    r"\n\n<(?P<tag>hook-context|attachment|command-name)\b[^>\n]*>(?P<body>.*?)</(?P=tag)>", re.S
)
"""A block appended to a prompt for the model; typed_text takes them off."""


def hook_context_block(event: str, text: str) -> str:
    """What a hook added to a prompt (SessionStart, UserPromptSubmit), appended for the model."""
    return f'\n\n<hook-context event="{event}">\n{text.strip()}\n</hook-context>'


def attachment_block(path: str, body: str) -> str:
    """An `@path` mention's file, appended to the prompt for the model."""
    return f'\n\n<attachment path="{path}">\n{body.rstrip()}\n</attachment>'


def custom_command_text(typed: str, prompt: str) -> str:
    """A custom command's expanded prompt, with the invocation the user typed after it (Claude
    Code tells the model the command's name too)."""
    return f"{prompt}\n\n<command-name>{' '.join(typed.split())}</command-name>"


def typed_text(text: str | None) -> str:
    """What the user typed, from the message the model was given."""
    if not text:
        return ""
    if ran := parse_user_command(text):
        return f"!{ran.command}"
    start = text.find("\n\n<")
    while start != -1:
        blocks = _blocks_to_end(text, start)
        if blocks is not None:
            invoked = [m["body"] for m in blocks if m["tag"] == "command-name"]
            return invoked[0] if invoked else text[:start]
        start = text.find("\n\n<", start + 1)
    return text


def _blocks_to_end(text: str, start: int) -> list[re.Match[str]] | None:
    """The appended blocks from `start` to the end of `text`, or None when something else is there."""
    blocks = []
    while start < len(text):
        found = _BLOCK.match(text, start)
        if found is None:
            return None
        blocks.append(found)
        start = found.end()
    return blocks
