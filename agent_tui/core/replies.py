"""What a slash command's effect returns, and the two ways front ends print it.

An effect returns values (rows, prose, a preformatted block); the TUI prints them as a plain
block in its chat (`plain`), an editor as Markdown (`markdown`), headless `run` as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class Reply:
    """A command's answer."""

    title: str
    """What the block is headed with: `/cost`, `/effort high`."""
    text: str = ""
    """Prose before anything else."""
    rows: tuple[tuple[str, str], ...] = ()
    """Label and value pairs (`/cost`, `/status`)."""
    block: str = ""
    """Preformatted text (a table, a diff), shown as is."""
    block_lang: str = ""
    tail: str = ""
    """Prose after the block."""
    level: Level = "info"
    renamed: str | None = None
    """The session's new title, for a front end that shows it (the TUI's tab label)."""

    def plain(self) -> str:
        """As the TUI's chat block and `run` print it."""
        parts = [self.text] if self.text else []
        if self.rows:
            width = max(len(label) for label, _ in self.rows)
            parts.append("\n".join(f"{label:<{width}}  {value}" for label, value in self.rows))
        if self.block:
            parts.append(self.block.rstrip("\n"))
        if self.tail:
            parts.append(self.tail)
        return "\n".join(parts)

    def markdown(self) -> str:
        """As an editor shows the agent's message: a bold title, a list of rows, a fenced block."""
        parts = [self.text] if self.text else []
        if self.rows:
            listed = "\n".join(f"- **{label}**: {value}" for label, value in self.rows)
            parts.append(f"**{self.title}**\n{listed}")
        if self.block:
            fence = "````" if "```" in self.block else "```"
            parts.append(f"{fence}{self.block_lang}\n{self.block.rstrip()}\n{fence}")
        if self.tail:
            parts.append(self.tail)
        return "\n\n".join(parts)


class Unavailable(Exception):
    """A command that cannot run here now; its message says why in one line (a warning)."""
