"""What a TUI slash command may ask of the tab it runs in, and of the App: the core's
`CommandHost` (core/command_host.py, what every front end offers a command's effect) extended
with the tab's screens and chat.

Handlers (frontends/tui/session_commands.py, status_commands.py, task_commands.py, permissions_cmd.py)
take a `CommandHost`, never the session view or the App themselves: they notify, print their
output, read the tab's session and services, rename the tab, open a screen, and change the
session only through its public methods (`set_reasoning`, `rename`, `revoke_rule`). This keeps
the command modules below the view in the import graph (tests/test_import_graph.py): nothing
here imports a widget or the App.
"""

from __future__ import annotations

from collections.abc import Awaitable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from agent_tui.core.command_host import CommandHost

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from agent_tui.context.budget import ContextBudget
    from agent_tui.frontends.tui.transcript import Entry, Level

T = TypeVar("T")


class AppActions(Protocol):
    """The App's screens and app-wide switches a command can reach (`AgentApp` has them)."""

    workspace: Path

    def action_context(self) -> None: ...
    def action_blobs(self, ref: str = "") -> object: ...
    def action_resume(self) -> object: ...
    def action_sandbox(self, argument: str = "") -> None: ...
    def action_theme(self, name: str = "") -> None: ...
    def action_help(self) -> None: ...
    def exit(self) -> None: ...
    async def add_tab(self, *, session_id: str | None = None, continue_: bool = False) -> object: ...
    async def push_screen_wait_safe(self, screen: Screen[T]) -> T | None: ...
    def install_commands(self, trusted: bool) -> list[str]:
        """Read the folder's custom commands into the menu again (after /trust); its notices."""

    @property
    def is_headless(self) -> bool:
        """No terminal to hand over (tests): an editor runs without suspending."""

    def suspend(self) -> AbstractContextManager[Any]:
        """Hand the terminal to a program (/memory's editor) and take it back after."""


class TabCommandHost(CommandHost, Protocol):
    """One tab, as its slash commands see it (`SessionView` is one)."""

    actions: AppActions
    """The App's screens and switches."""

    @property
    def title(self) -> str: ...

    @property
    def busy(self) -> bool:
        """A turn, compaction or opening runs in the tab."""

    @property
    def budget(self) -> ContextBudget | None:
        """The last measured budget."""

    def notify(self, message: str, *, severity: SeverityLevel = "information") -> None:
        """A toast: a mistake in how a command was typed (plain text, never markup)."""

    def show_output(self, command: str, text: str, level: Level = "info") -> None:
        """A command's output: a block in the tab's chat that scrolls with it."""

    async def note(self, entry: Entry) -> None:
        """A line at the bottom of the tab's chat."""

    def rename(self, title: str) -> None:
        """The tab's label (the session's own title is `AgentSession.rename`)."""

    def open_screen(self, screen: Screen[Any]) -> None: ...

    async def ask(self, screen: Screen[T]) -> T | None:
        """Open a modal and wait for its answer (None: dismissed)."""

    def in_background(self, work: Awaitable[None], group: str) -> None:
        """Run `work` beside the tab's turn (one at a time per group)."""

    async def send(self, text: str) -> None: ...
    async def start_compact(self, instructions: str | None) -> None: ...

    async def start_review(self, base: str | None) -> None: ...
    async def open_new(self, session_id: str | None = None) -> None: ...
    async def switch_model(self, name: str) -> None: ...

    async def show_history(self, entries: list[Entry]) -> None:
        """Show these entries instead of the chat (after a rewind)."""

    def put_in_input(self, text: str) -> None:
        """Text back in the input, focused, to edit and send again."""

    def remeasure(self) -> None:
        """Measure the session again and show it on the meter."""
