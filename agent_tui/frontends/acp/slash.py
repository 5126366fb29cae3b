"""The slash commands an editor offers in its prompt box (`available_commands_update`): those the
one registry (core/commands.py) offers editors, plus the user's and the project's custom
Markdown commands, which are prompts (extensions/invoke.py expands them).

A command with an effect is an operation (core/commands.py `as_operation`: /skill is
`activate_skill`, /memory the driver's `command`) submitted to the session's driver, its
`command_reply` event answered as Markdown; the few that act on the editor session itself are
bound by name in `EDITOR_ACTIONS` (frontends/acp/commands.py). The TUI's
screens and app actions (/resume, /blobs, /theme, /quit, …) are not offered: the editor has its
own. A prompt starting with any other `/word` goes to the model as written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from acp import schema as s

from agent_tui.core import commands as registry
from agent_tui.frontends.acp import commands as actions

if TYPE_CHECKING:
    from agent_tui.extensions.commands import CustomCommand
    from agent_tui.frontends.acp.commands import EditorHost

Handler = Callable[["EditorHost", str], Awaitable["str | None"]]
"""Runs a command on an editor session with what followed its name; returns the message to send
(None when it sent its own updates)."""

EDITOR_ACTIONS: dict[str, Handler] = {
    "compact": actions.compact,
    "context": actions.context,
    "clear": actions.clear,
    "model": actions.model,
}
"""The editor's own form of a registry command, by name; every other editor command is an operation."""

HINTS = {
    "model": "NAME (none: show it)",
    "skill": "NAME (none: list them)",
    "compact": "instructions (optional)",
}
"""Editors show the hint in the prompt box: a few read better in words than in usage syntax."""

COMMANDS = registry.offered(registry.Front.EDITOR)
BY_NAME = {c.name: c for c in COMMANDS}


def _hint(command: registry.Command) -> str | None:
    return HINTS.get(command.name) or command.args or None


def available_commands(custom: Iterable[CustomCommand] = ()) -> s.AvailableCommandsUpdate:
    """Ours, then the custom commands a built-in does not shadow."""
    custom = list(custom)
    theirs = {m.name.lower() for m in custom}
    offered = [
        s.AvailableCommand(
            name=c.name,
            description=c.help,
            input=s.AvailableCommandInput(root=s.UnstructuredCommandInput(hint=hint))
            if (hint := _hint(c))
            else None,
        )
        for c in COMMANDS
        if not (c.name in registry.YIELDING and c.name in theirs)
    ]
    for command in custom:
        if command.name.lower() in BY_NAME.keys() - registry.YIELDING:
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


async def answer(host: EditorHost, command: registry.Command, argument: str) -> str | None:
    """Run `command` on the editor session: its editor action, or its effect as Markdown."""
    action = EDITOR_ACTIONS.get(command.name)
    if action is not None:
        return await action(host, argument)
    operation = registry.as_operation(command, argument)
    assert operation is not None, f"/{command.name} is neither an operation nor an editor action"
    # The driver runs it and answers with a `command_reply` event (a warning says what was wrong).
    return (await host.answer(operation)).reply().markdown()


def parse(
    text: str, custom: Iterable[str] = (), withheld: Iterable[str] = ()
) -> tuple[registry.Command, str] | None:
    """(command, argument) when `text` is one of the commands editors get, else None (also for
    a built-in that yields to a custom command of that name, trusted or withheld)."""
    return registry.parse(text, registry.Front.EDITOR, tuple(custom), tuple(withheld))
