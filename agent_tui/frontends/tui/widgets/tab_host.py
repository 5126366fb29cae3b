"""A tab as its slash commands see it: the `TabCommandHost` (frontends/tui/command_host.py) the
view owns (`SessionView.commands`).

Each method is a small public call on the tab's widgets, so a command never needs the view's
insides (nor the view's module: the commands import only the protocol). It sees the view through
`HostedTab`, the part of it the commands reach.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from agent_tui.core.protocol_events import ends
from agent_tui.frontends.tui.slash import custom_sources
from agent_tui.frontends.tui.transcript import OutputEntry
from agent_tui.frontends.tui.widgets.tab_parts import SessionTab

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from agent_tui.agent.events import AgentEvent
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.config import Config
    from agent_tui.context.budget import ContextBudget
    from agent_tui.core.ops import Op
    from agent_tui.extensions.commands import CustomCommand
    from agent_tui.frontends.tui.command_host import AppActions
    from agent_tui.frontends.tui.transcript import Entry, Level
    from agent_tui.frontends.tui.widgets.prompt import PromptInput
    from agent_tui.frontends.tui.widgets.tab_opening import TabOpener

T = TypeVar("T")


class HostedTab(SessionTab, Protocol):
    """What the commands use of `SessionView`: beside what every collaborator reaches, its
    session, prompt and app, and the work a command starts."""

    actions: AppActions

    @property
    def app(self) -> App[Any]: ...
    @property
    def session(self) -> AgentSession | None: ...
    @property
    def title(self) -> str: ...
    @property
    def busy(self) -> bool: ...
    @property
    def prompt(self) -> PromptInput: ...
    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...
    async def send(self, text: str) -> None: ...
    async def start_compact(self, instructions: str | None) -> None: ...
    async def start_review(self, base: str | None) -> None: ...
    async def open_new(self, session_id: str | None = None) -> None: ...
    @property
    def opening(self) -> TabOpener: ...


class TabCommands:
    def __init__(self, tab: HostedTab) -> None:
        self.tab = tab
        self.actions: AppActions = tab.actions

    @property
    def session(self) -> AgentSession | None:
        return self.tab.session

    @property
    def services(self) -> AppServices | None:
        return self.tab.services

    @property
    def title(self) -> str:
        return self.tab.title

    @property
    def busy(self) -> bool:
        return self.tab.busy

    @property
    def budget(self) -> ContextBudget | None:
        return self.tab.budget

    async def run_operation(self, operation: Op) -> AgentEvent | None:

        driver = self.tab.driver
        try:
            async for event in driver.drive(operation):  # the sink renders its turn events
                if ends(operation, event):
                    return event
            return None
        finally:
            self.tab.services = driver.services  # /effort's config, which a later /model builds from

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
        self.tab.app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def show_output(self, command: str, text: str, level: Level = "info") -> None:
        """A command's output as a block at the bottom of the chat (scheduled, so sync and async
        callers alike keep their order)."""
        chat = self.tab.chat

        async def add() -> None:
            await chat.add(OutputEntry(command, text.rstrip("\n"), level))
            # The user asked for it: the chat follows to it even when they had scrolled up
            # (PageUp), once it is laid out (scrolling now would stop short of it).
            chat.jump_end()
            chat.call_after_refresh(chat.jump_end)

        self.tab.call_later(add)

    async def note(self, entry: Entry) -> None:
        await self.tab.chat.add(entry)

    def rename(self, title: str, *, named: bool = False) -> None:
        self.tab.rename(title, named=named)

    def use_config(self, config: Config) -> None:
        if self.tab.services is not None:
            self.tab.services = dataclasses.replace(self.tab.services, config=config)

    def open_screen(self, screen: Screen[Any]) -> None:
        self.tab.app.push_screen(screen)

    async def ask(self, screen: Screen[T]) -> T | None:
        return await self.tab.actions.push_screen_wait_safe(screen)

    def in_background(self, work: Awaitable[None], group: str) -> None:
        self.tab.run_worker(work, group=group, exclusive=True, exit_on_error=False)

    async def send(self, text: str) -> None:
        await self.tab.send(text)

    async def start_compact(self, instructions: str | None) -> None:
        await self.tab.start_compact(instructions)

    async def start_review(self, base: str | None) -> None:
        await self.tab.start_review(base)

    async def open_new(self, session_id: str | None = None) -> None:
        await self.tab.open_new(session_id)

    async def switch_model(self, name: str) -> None:
        await self.tab.opening.switch_model(name)

    async def show_history(self, entries: list[Entry]) -> None:
        await self.tab.chat.load(entries)

    def put_in_input(self, text: str) -> None:
        self.tab.prompt.set_text(text)
        self.tab.prompt.focus()

    @property
    def workspace(self) -> Path:
        session = self.tab.session
        return session.workspace if session is not None else self.tab.actions.workspace

    def custom_commands(self) -> list[CustomCommand]:

        return custom_sources()

    def remeasure(self) -> None:
        session = self.tab.session
        if session is not None:
            self.tab.budget = session.measure()
            self.tab.meter.show(self.tab.budget)
