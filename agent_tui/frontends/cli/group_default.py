"""What a command group does when named alone: `agent-tui sessions` lists, like `agent-tui trust`.

Printing the group's help and exiting 2 read as an error for what is the most common question
("what sessions are there?"). A group with an obvious listing runs it with its defaults; one
without (`db`) prints its help and exits 0.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import typer


def _defaults(command: Callable[..., Any]) -> dict[str, Any]:
    """The command's parameters at their typer defaults (an Option's own default value)."""
    values = {}
    for name, parameter in inspect.signature(command).parameters.items():
        default = parameter.default
        values[name] = getattr(default, "default", default)
    return values


def run_with(command: Callable[..., Any], **values: Any) -> Any:
    """Call a typer command from code: its defaults, then `values` (`agent-tui -p` runs `run`)."""
    return command(**{**_defaults(command), **values})


def run_by_default(group: typer.Typer, command: Callable[..., Any] | None) -> None:
    """Make `group` alone run `command` with its defaults (None: print the group's help, exit 0)."""

    @group.callback(invoke_without_command=True)
    def _alone(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is not None:
            return
        if command is None:
            typer.echo(ctx.get_help())
            return
        command(**_defaults(command))
