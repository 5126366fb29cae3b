"""A tab as its slash commands see it: the `TabCommandHost` methods (frontends/tui/command_host.py).

A mixin of `SessionView`: each method is a small public call on the view's own widgets, so a
command never needs the view's insides (nor the view's module: the commands import only the
protocol).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent_tui.frontends.tui.transcript import OutputEntry

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.widget import Widget

    from agent_tui.compose.factory import AppServices
    from agent_tui.config import Config
    from agent_tui.context.budget import ContextBudget
    from agent_tui.extensions.commands import CustomCommand
    from agent_tui.frontends.tui.command_host import TabCommandHost
    from agent_tui.frontends.tui.transcript import Entry, Level
    from agent_tui.frontends.tui.widgets.chat import ChatPane
    from agent_tui.frontends.tui.widgets.meter import ContextMeter
    from agent_tui.frontends.tui.widgets.prompt import PromptInput

    class _Tab(Widget, TabCommandHost):
        """What the host methods use of `SessionView`, so mypy checks them against it."""

        services: AppServices | None

        @property
        def chat(self) -> ChatPane: ...
        @property
        def prompt(self) -> PromptInput: ...
        @property
        def meter(self) -> ContextMeter: ...
        @property
        def budget(self) -> ContextBudget | None: ...
        @budget.setter
        def budget(self, value: ContextBudget | None) -> None: ...
else:
    _Tab = object

T = TypeVar("T")


class TabHost(_Tab):
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast; plain text unless asked (command notices quote user text and paths)."""
        self.app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def show_output(self, command: str, text: str, level: Level = "info") -> None:
        """A command's output as a block at the bottom of the chat (scheduled, so sync and async
        callers alike keep their order)."""

        async def add() -> None:
            await self.chat.add(OutputEntry(command, text.rstrip("\n"), level))
            # The user asked for it: the chat follows to it even when they had scrolled up
            # (PageUp), once it is laid out (scrolling now would stop short of it).
            self.chat.jump_end()
            self.chat.call_after_refresh(self.chat.jump_end)

        self.call_later(add)

    async def note(self, entry: Entry) -> None:
        await self.chat.add(entry)

    def use_config(self, config: Config) -> None:
        if self.services is not None:
            self.services = dataclasses.replace(self.services, config=config)

    def open_screen(self, screen: Screen[Any]) -> None:
        self.app.push_screen(screen)

    async def ask(self, screen: Screen[T]) -> T | None:
        return await self.actions.push_screen_wait_safe(screen)

    def in_background(self, work: Awaitable[None], group: str) -> None:
        self.run_worker(work, group=group, exclusive=True, exit_on_error=False)

    async def show_history(self, entries: list[Entry]) -> None:
        await self.chat.load(entries)

    def put_in_input(self, text: str) -> None:
        self.prompt.set_text(text)
        self.prompt.focus()

    @property
    def workspace(self) -> Path:
        return self.session.workspace if self.session is not None else self.actions.workspace

    def custom_commands(self) -> list[CustomCommand]:
        from agent_tui.frontends.tui.slash import custom_sources

        return custom_sources()

    def remeasure(self) -> None:
        if self.session is not None:
            self.budget = self.session.measure()
            self.meter.show(self.budget)
