"""The slash commands an editor offers in its prompt box (`available_commands_update`).

Our commands that make sense without our screens, each answering with a message (the figures
the TUI shows in its chat block; acp/commands.py runs them), plus the user's and the project's
custom Markdown commands, which are prompts (extensions/invoke.py expands them). The TUI's
screens and app actions (/resume, /blobs, /theme, /quit, …) are not offered: the editor has its
own. A prompt starting with any other `/word` goes to the model as written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp import schema as s

from agent_tui.acp import commands as run

if TYPE_CHECKING:
    from agent_tui.acp.host import CommandHost
    from agent_tui.extensions.commands import CustomCommand

Handler = Callable[["CommandHost", str], Awaitable["str | None"]]
"""Runs a command on an editor session (acp/host.py) with what followed its name; returns the message to
send (None when it sent its own updates)."""


@dataclass(frozen=True)
class EditorCommand:
    name: str
    hint: str | None
    """What may follow the name; None when nothing does."""
    description: str
    handler: Handler


COMMANDS: tuple[EditorCommand, ...] = (
    EditorCommand("compact", "instructions (optional)", "condense the conversation now", run.compact),
    EditorCommand("context", None, "show what fills the context window", run.context),
    EditorCommand("cost", None, "what this session has cost, in tokens and money", run.cost),
    EditorCommand("status", None, "model, folder, trust, sandbox, session and window", run.status),
    EditorCommand("clear", None, "start a new conversation in this session", run.clear),
    EditorCommand("model", "NAME (none: show it)", "show or switch this session's model", run.model),
    EditorCommand("tools", None, "the tools offered and what each description costs", run.tools),
    EditorCommand("memory", None, "where the memories, rules and skills files are", run.memory),
    EditorCommand("undo", "[N] [--force]", "put back the files the last N turns changed", run.undo),
    EditorCommand("diff", None, "what this session changed in the workspace", run.diff),
    EditorCommand("hooks", None, "the hooks, custom commands and skills in effect", run.hooks),
    EditorCommand("remember", "TEXT", "save a note every session will see", run.remember),
    EditorCommand("rename", "TITLE", "give this session a title", run.rename),
    EditorCommand("skill", "NAME (none: list them)", "activate a skill for this session", run.skill),
    EditorCommand("init", None, "write an AGENTS.md skeleton for this project", run.init),
    EditorCommand(
        "effort",
        "minimal|low|medium|high|off",
        "how hard a reasoning model thinks (none: show it)",
        run.effort,
    ),
)
BY_NAME = {c.name: c for c in COMMANDS}


def available_commands(custom: Iterable[CustomCommand] = ()) -> s.AvailableCommandsUpdate:
    """Ours, then the custom commands a built-in does not shadow."""
    offered = [
        s.AvailableCommand(
            name=c.name,
            description=c.description,
            input=s.AvailableCommandInput(root=s.UnstructuredCommandInput(hint=c.hint)) if c.hint else None,
        )
        for c in COMMANDS
    ]
    for command in custom:
        if command.name.lower() in BY_NAME:
            continue
        offered.append(
            s.AvailableCommand(
                name=command.name,
                description=f"{command.description or 'custom command'} ({command.source})",
                input=s.AvailableCommandInput(
                    root=s.UnstructuredCommandInput(hint=command.argument_hint or "ARGS")
                ),
            )
        )
    return s.AvailableCommandsUpdate(session_update="available_commands_update", available_commands=offered)


def parse(text: str) -> tuple[EditorCommand, str] | None:
    """(command, argument) when `text` is one of our commands, else None."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    command = BY_NAME.get(name.lower())
    return (command, argument.strip()) if command is not None else None
