"""Custom commands and skills in the TUI's command registry: each `/NAME` from a Markdown file
becomes a `SlashCommand` in the menu, the palette and `/help` (with its source file). Sending it
is sending a prompt: the agent worker expands it (extensions/invoke.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.extensions.commands import discover, withheld
from agent_tui.frontends.tui import slash

if TYPE_CHECKING:
    from agent_tui.extensions.commands import CustomCommand
    from agent_tui.frontends.tui.command_host import TabCommandHost


def _entry(command: CustomCommand) -> slash.SlashCommand:
    name = command.name

    async def send(view: TabCommandHost, argument: str) -> None:
        await view.send(f"/{name} {argument}".rstrip())

    help_text = f"{command.description or 'custom command'} ({command.source})"
    return slash.SlashCommand(
        name, command.argument_hint or "[ARGS]", help_text, slash.Runs.IDLE, send, f"/{name}"
    )


def _shown(path: Path, workspace: Path) -> str:
    return str(path.relative_to(workspace)) if path.is_relative_to(workspace) else str(path)


def install(workspace: Path, trusted: bool) -> list[str]:
    """Read the workspace's custom commands into the registry; the notices to show (malformed
    files, names a built-in shadows)."""

    catalog = discover(workspace, trusted)
    found = list(catalog.commands.values())
    slash.set_withheld({c.name: _shown(c.path, workspace) for c in withheld(workspace, trusted).values()})
    shadowed = slash.set_custom([_entry(c) for c in found], found)
    notices = list(catalog.notices)
    if shadowed:
        names = ", ".join(f"/{c.name} ({c.help.rsplit('(', 1)[-1].rstrip(')')})" for c in shadowed)
        notices.append(f"custom commands named like built-ins are not used (the built-in wins): {names}")
    return notices
