"""What a slash command's effect may use of the front end it runs in: one narrow protocol.

The `SessionDriver` (core/driver.py) is the one that runs them: every front end (a TUI tab, an
editor session, headless `run`, the server) submits a command as an operation to its driver.
The effects (core/command_effects.py) read the session and the services and return a `Reply`;
nothing here knows a widget, an editor or a terminal.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.config import Config
    from agent_tui.extensions.commands import CustomCommand


class CommandHost(Protocol):
    """A front end's session, as a command's effect sees it."""

    @property
    def session(self) -> AgentSession | None:
        """The session commands act on; None while none is open (no model configured)."""

    @property
    def services(self) -> AppServices | None:
        """The shared services once built."""

    @property
    def workspace(self) -> Path:
        """The folder the front end works in (the session's when one is open)."""

    def use_config(self, config: Config) -> None:
        """The configuration a later /model builds its session from (after /effort)."""

    def custom_commands(self) -> list[CustomCommand]:
        """The user's and (in a trusted folder) the project's Markdown commands."""
