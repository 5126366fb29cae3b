"""`agent-tui "fix the bug"`: a first message beside the sub-commands, as `claude "…"` takes one.

A click group reads its first positional argument as a sub-command's name, so `agent-tui "fix
it"` would be "No such command". This group takes the positional words that name no sub-command
(`sessions`, `run`, … keep working) out of the arguments before click parses them, and leaves
them in `ctx.meta[MESSAGE]` for the callback. Options may come before or after the message.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup

MESSAGE = "agent_tui.message"


class MessageGroup(TyperGroup):
    """The top-level group: sub-commands by name, anything else is the first message."""

    def _takes_value(self, ctx: Any, arg: str) -> bool:
        """Whether option `arg` (as typed) consumes the next argument."""
        if arg.startswith("--") and "=" in arg:
            return False
        # Typer carries its own copy of click: options are recognised by what they have.
        for param in self.get_params(ctx):
            names = (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ()))
            if getattr(param, "param_type_name", "") == "option" and arg in names:
                return not (getattr(param, "is_flag", False) or getattr(param, "count", False))
        return False

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        words: list[str] = []
        kept: list[str] = []
        index = 0
        while index < len(args):
            arg = args[index]
            if arg == "--":  # everything after is the message
                words += args[index + 1 :]
                break
            if arg.startswith("-") and arg != "-":
                kept.append(arg)
                if self._takes_value(ctx, arg) and index + 1 < len(args):
                    kept.append(args[index + 1])
                    index += 1
            elif not words and arg in self.commands:
                kept += args[index:]  # a sub-command: it parses the rest itself
                break
            else:
                words.append(arg)
            index += 1
        if words:
            ctx.meta[MESSAGE] = " ".join(words)
        return super().parse_args(ctx, kept)


def message(ctx: Any) -> str | None:
    """The first message given on the command line, if any."""
    found = ctx.meta.get(MESSAGE)
    return found if isinstance(found, str) else None
