"""The TUI's side of the one command registry (core/commands.py): the input's menu, the command
palette and `/help` list the commands the registry offers the TUI, in its order.

A command that is an operation (core/commands.py `as_operation`: /effort, /undo, /rename,
/remember, /skill) is submitted to the tab's driver, which runs the effect and answers with a
`command_reply` event the tab renders as a block in its chat; so is every other command with an
effect (the driver's `command` operation: /cost, /pin, /diff …). A command
without one is a TUI action bound here by name in `TUI_ACTIONS` (open a screen, replace the tab's
session, quit) or one whose TUI form differs from the effect (/context opens its screen, /memory
opens $EDITOR). tests/test_command_registry.py fails when a name here is not in the registry or
a TUI command is left unbound. A handler gets a `TabCommandHost` (frontends/tui/command_host.py), never the
session view: the command modules sit below the view in the import graph.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.base.errors_text import one_line
from agent_tui.core import commands as registry
from agent_tui.core import protocol_events as pe
from agent_tui.core.commands import Runs
from agent_tui.frontends.tui import task_commands

if TYPE_CHECKING:
    from agent_tui.compose.factory import AppServices
    from agent_tui.core.replies import Reply
    from agent_tui.extensions.commands import CustomCommand
    from agent_tui.frontends.tui.command_host import TabCommandHost

__all__ = ["Runs", "SlashCommand", "COMMANDS", "parse", "run", "lookup", "completions"]

log = logging.getLogger(__name__)

Handler = Callable[["TabCommandHost", str], Awaitable[None]]
"""Runs a command in a tab: the tab's view and whatever followed the name ('' when nothing)."""


def _action(module: str, name: str) -> Handler:
    """The TUI action `name` of `module`, imported when it first runs: the actions reach screens,
    the memory files and the skills, which the first frame does not need (the names are checked
    by tests/test_command_registry.py, as a type checker cannot see them)."""
    path = f"agent_tui.frontends.tui.{module}"

    async def action(view: TabCommandHost, argument: str) -> None:
        # lazy: start-up (an action's module loads when the command first runs)
        run: Handler = getattr(importlib.import_module(path), name)
        await run(view, argument)

    action.__name__ = action.__qualname__ = name
    action.__module__ = path
    return action


TUI_ACTIONS: dict[str, Handler] = {
    "compact": _action("session_commands", "compact"),
    "review": _action("session_commands", "review"),
    "context": _action("session_commands", "context"),
    "blobs": _action("session_commands", "blobs"),
    "new": _action("session_commands", "new"),
    "resume": _action("session_commands", "resume"),
    "model": _action("session_commands", "model"),
    "permissions": _action("session_commands", "permissions"),
    "sandbox": _action("session_commands", "sandbox"),
    "tasks": task_commands.tasks,
    "rewind": task_commands.rewind,
    "fork": task_commands.fork,
    "handoff": task_commands.handoff,
    "theme": _action("session_commands", "theme"),
    "help": _action("session_commands", "show_help"),
    "quit": _action("session_commands", "quit_app"),
    "clear": _action("status_commands", "clear"),
    "memory": _action("status_commands", "memory"),
    "trust": _action("trust_command", "trust_folder"),
}
"""The TUI's own form of a registry command, by name; every other TUI command runs its effect."""


@dataclass(frozen=True)
class SlashCommand:
    """One entry of the menu: a registry command bound to its TUI handler, or a custom command."""

    name: str
    args: str
    help: str
    runs: Runs
    handler: Handler
    palette: str | None = None
    submits: bool = False
    """Its handler submits an operation to the tab's driver, which the tab has once opened."""

    @property
    def usage(self) -> str:
        """How it is typed: `/compact [instructions]`."""
        return f"/{self.name} {self.args}".rstrip()

    @property
    def takes_argument(self) -> bool:
        """True when text may follow the name (completion then leaves a space after it)."""
        return bool(self.args)

    @property
    def needs_argument(self) -> bool:
        """True when the argument is required (the palette then pre-fills the input)."""
        return bool(self.args) and not self.args.startswith("[")


def _show(view: TabCommandHost, reply: Reply) -> None:
    """A reply as a block in the tab's chat (and the tab's label, after a rename)."""
    if reply.renamed is not None:
        view.rename(reply.renamed, named=True)
    view.show_output(reply.title, reply.plain(), reply.level)
    if not view.busy:  # a pin (or a model) changed what the next request holds: the meter follows
        view.remeasure()


def submitted(command: registry.Command) -> Handler:
    """A handler that submits the operation the command is (core/commands.py `as_operation`)
    to the tab's driver and renders the event that ends it. The tab runs it only once it has a
    driver: typed while the tab opens, it waits in the queue (tab_controller.py `send`)."""

    async def handler(view: TabCommandHost, argument: str) -> None:
        operation = registry.as_operation(command, argument)
        assert operation is not None
        end = await view.run_operation(operation)
        if isinstance(end, pe.CommandReplied):
            _show(view, end.reply())
        else:  # refused (busy with another client's work), or no session to act on
            view.notify(f"/{command.name}: {getattr(end, 'message', 'no answer')}", severity="warning")

    return handler


def _bind(command: registry.Command) -> SlashCommand:
    handler = TUI_ACTIONS.get(command.name)
    submits = handler is None
    if handler is None:
        assert registry.as_operation(command, "") is not None, f"/{command.name}: no operation, no TUI action"
        handler = submitted(command)
    return SlashCommand(
        command.name, command.args, command.help, command.runs, handler, command.palette, submits
    )


COMMANDS: tuple[SlashCommand, ...] = tuple(_bind(c) for c in registry.offered(registry.Front.TUI))

BY_NAME = {command.name: command for command in COMMANDS}

YIELDING = registry.YIELDING

_custom: dict[str, SlashCommand] = {}
"""Custom commands from Markdown files (frontends/tui/custom_commands.py), beside the built-ins. They are
sent as prompts (extensions/invoke.py expands them), so `parse` never returns one."""
_custom_sources: list[CustomCommand] = []


def set_custom(
    commands: list[SlashCommand], sources: list[CustomCommand] | None = None
) -> list[SlashCommand]:
    """Replace the custom commands; returns those a built-in of the same name shadows."""
    _custom.clear()
    _custom_sources[:] = [c for c in sources or [] if c.name.lower() not in BY_NAME.keys() - YIELDING]
    shadowed = []
    for command in commands:
        if command.name.lower() in BY_NAME.keys() - YIELDING:
            shadowed.append(command)
        else:
            _custom[command.name.lower()] = command
    return shadowed


_withheld: dict[str, str] = {}
"""The untrusted folder's own commands (name → file): not offered, but named when typed."""


def set_withheld(commands: dict[str, str]) -> None:
    _withheld.clear()
    _withheld.update({name.lower(): source for name, source in commands.items()})


def unknown_message(word: str) -> str:
    """What to say of an unknown `/word`: why a folder's own command is missing, else /help."""
    source = _withheld.get(word.lower())
    if source is not None:
        return registry.withheld_text(word, source)
    return f"Unknown command /{word}: /help lists the commands."


def custom_sources() -> list[CustomCommand]:
    """The custom commands in use, as read from their files (for /hooks)."""
    return list(_custom_sources)


def all_commands() -> tuple[SlashCommand, ...]:
    """Built-ins, then custom commands: what the menu, palette and /help list."""
    return tuple(c for c in COMMANDS if c.name not in _custom) + tuple(_custom.values())


def lookup(name: str) -> SlashCommand | None:
    return _custom.get(name.lower()) or BY_NAME.get(name)


@dataclass(frozen=True)
class ParsedCommand:
    """A line the user sent that names a command."""

    command: SlashCommand
    argument: str
    """Whatever followed the name, stripped ('' when nothing)."""


def memory_note(text: str) -> str | None:
    """`# always use tabs` is Claude Code's way to save a memory: the `/remember` it stands for.
    One line only: a pasted Markdown document that starts with a heading is a prompt."""
    stripped = text.strip()
    if not stripped.startswith("#") or stripped.startswith("##") or "\n" in stripped:
        return None
    note = stripped[1:].strip()
    return f"/remember {note}" if note else None


def parse(text: str) -> ParsedCommand | None:
    """The command `text` invokes, or None when it is a prompt (or an unknown `/word`)."""
    # A project's own command replaces a YIELDING built-in; withheld, it is named instead.
    found = registry.parse(text, registry.Front.TUI, _custom.keys(), _withheld.keys())
    if found is None:
        return None
    command, argument = found
    return ParsedCommand(BY_NAME[command.name], argument)


async def run(view: TabCommandHost, parsed: ParsedCommand) -> None:
    """Run a parsed command's handler; a failure is one line, never a traceback on screen."""
    name = parsed.command.name
    try:
        await parsed.command.handler(view, parsed.argument)
    except Exception as exc:
        log.exception("/%s failed", name)
        view.notify(f"/{name} failed: {one_line(exc, 160)}", severity="error")


def extensions_text(services: AppServices) -> str:
    """The /hooks block, for /help's section."""

    from agent_tui.core.command_effects import (
        extensions_text as text,
    )  # lazy: start-up (not in the first frame)

    return text(services, custom_sources())


def unknown_command(text: str) -> str | None:
    """The `/word` of a line that looks like a command but names none, for a helpful notice."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or parse(stripped):
        return None
    word = stripped[1:].split(" ", 1)[0]
    if word.lower() in _custom:
        return None
    # A path like /etc/hosts is a prompt, not a mistyped command.
    return None if not word or "/" in word else word


def completions(text: str) -> list[SlashCommand]:
    """Commands whose name starts with what follows the slash (only while the name is typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    return [command for command in all_commands() if command.name.lower().startswith(prefix)]


def readme_table() -> list[str]:
    """The README's command table (the registry's)."""
    return registry.readme_table()
