"""The app's commands: the slash commands only the App can run, and the command palette.

An object the App owns (`AgentApp.commands`), and the `AppActions` a tab's slash commands reach:
the palette and `/help`, `/context`, `/blobs`, `/theme`, `/resume`, `/quit` share one set of
actions (the session view runs `/compact`, `/new` and `/model` itself). It sees the App through
`CommandsHost`, the part of it the commands use, so it imports neither the App nor its tabs.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.app import SystemCommand

from agent_tui.frontends.tui import slash, themes
from agent_tui.frontends.tui.command_output import show
from agent_tui.frontends.tui.custom_commands import install
from agent_tui.frontends.tui.screens.dialogs import HelpScreen
from agent_tui.frontends.tui.slash import extensions_text
from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.frontends.tui.widgets.compaction_item import CompactionItem

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.theme import Theme
    from textual.worker import Worker

    from agent_tui.compose.factory import AppServices
    from agent_tui.frontends.tui import slash
    from agent_tui.frontends.tui.widgets.session_view import SessionView
    from agent_tui.tools.sandbox import Sandbox

T = TypeVar("T")


class CommandsHost(Protocol):
    """What the commands use of `AgentApp`: Textual's App calls, its tabs and its services."""

    workspace: Path
    file_themes: list[str]
    theme: str

    @property
    def screen(self) -> Screen[object]: ...
    @property
    def available_themes(self) -> dict[str, Theme]: ...
    @property
    def is_headless(self) -> bool: ...
    @property
    def view(self) -> SessionView | None: ...
    def notify(self, message: str, *, severity: SeverityLevel = "information") -> None: ...
    def push_screen(self, screen: Screen[Any]) -> Any: ...
    async def push_screen_wait_safe(self, screen: Screen[T]) -> T | None: ...
    def run_worker(
        self, work: Any, *, group: str = "default", exclusive: bool = False, exit_on_error: bool = True
    ) -> Worker[Any]: ...
    def exit(self) -> None: ...
    def suspend(self) -> AbstractContextManager[Any]: ...
    async def services(self) -> AppServices | None: ...
    def services_now(self) -> AppServices | None: ...
    async def add_tab(self, *, session_id: str | None = None, continue_: bool = False) -> SessionView: ...
    def show_session(self, session_id: str) -> bool: ...
    def refresh_topbar(self) -> None: ...
    async def action_new_tab(self) -> None: ...
    def action_close_tab(self) -> object: ...


class AppCommands:
    """Actions behind slash commands and palette entries, owned by the App."""

    def __init__(self, app: CommandsHost) -> None:
        self.app = app
        self.workspace = app.workspace

    # -- what a tab's commands reach of the App (AppActions, frontends/tui/command_host.py) ----------------

    def exit(self) -> None:
        self.app.exit()

    async def add_tab(self, *, session_id: str | None = None, continue_: bool = False) -> object:
        return await self.app.add_tab(session_id=session_id, continue_=continue_)

    async def push_screen_wait_safe(self, screen: Screen[T]) -> T | None:
        return await self.app.push_screen_wait_safe(screen)

    @property
    def is_headless(self) -> bool:
        return self.app.is_headless

    def suspend(self) -> AbstractContextManager[Any]:
        return self.app.suspend()

    # -- the commands ------------------------------------------------------------------------

    def action_help(self) -> None:

        if not isinstance(self.app.screen, HelpScreen):
            sandbox = self._sandbox()
            services = self.app.services_now()
            extensions = None
            if services is not None:
                extensions = extensions_text(services)
            self.app.push_screen(
                HelpScreen(sandbox=sandbox.describe() if sandbox else None, extensions=extensions)
            )

    def _sandbox(self) -> Sandbox | None:
        services = self.app.services_now()
        return services.sandbox if services is not None else None

    def _print_block(self, command: str, text: str) -> None:
        """A command's output as a block in the active tab's chat (a toast while none is open)."""

        view = self.app.view
        if view is None:
            self.app.notify(text)
        else:
            show(view.commands, command, text)

    def action_sandbox(self, argument: str = "") -> None:
        """/sandbox shows what the sandbox allows; `/sandbox MODE` and `/sandbox auto on|off` switch."""
        sandbox = self._sandbox()
        if sandbox is None:
            self.app.notify(
                "The sandbox is not set up yet (the session is still loading).", severity="warning"
            )
            return
        words = argument.split()
        try:
            if not words:
                self._print_block(
                    "/sandbox",
                    f"{sandbox.describe()}\n/sandbox workspace-write | read-only | off switches; "
                    "/sandbox auto on|off lets sandboxed commands run without asking.",
                )
                return
            if words[0] == "auto" and len(words) == 2 and words[1] in ("on", "off"):
                sandbox.auto_approve = words[1] == "on"
                message = f"Sandbox: {sandbox.label()}"
            elif len(words) == 1:
                message = sandbox.set_mode(words[0])
            else:
                raise ValueError("usage: /sandbox [workspace-write | read-only | off | auto on|off]")
        except ValueError as exc:
            self.app.notify(str(exc), severity="warning")
            return
        self._print_block(f"/sandbox {argument.strip()}", message + " (every tab)")
        self.app.refresh_topbar()

    def action_context(self) -> None:

        view = self.app.view
        if view is None or view.session is None:
            self.app.notify("No session with a model in this tab.", severity="warning")
            return
        # Measuring mid-turn would change the request being sent: show the last budget then.
        budget = view.budget if view.busy and view.budget else view.session.measure()
        from agent_tui.frontends.tui.screens.context_screen import (
            ContextScreen,
        )  # lazy: start-up (opened on demand)

        self.app.push_screen(ContextScreen(view.session, budget))

    def action_blobs(self, ref: str = "") -> Worker[None]:
        """The blob browser over this tab's session (at `ref`, a ref id or ctx:// URI)."""
        return self.app.run_worker(self._blobs(ref), group="blobs", exclusive=True, exit_on_error=False)

    async def _blobs(self, ref: str) -> None:

        services = await self.app.services()
        if services is None:
            self.app.notify("The session store is not available.", severity="error")
            return
        from agent_tui.frontends.tui.screens.blob_rows import (
            call_labels,
            syntax_hints,
        )  # lazy: start-up (opened on demand)
        from agent_tui.frontends.tui.screens.blobs import BlobsScreen  # lazy: start-up (opened on demand)

        if isinstance(screen := self.app.screen, BlobsScreen):
            if ref:
                await screen.open_ref(ref)
            return
        session = self.app.view.session if self.app.view is not None else None
        self.app.push_screen(
            BlobsScreen(
                services.store,
                session_id=session.session_id if session else None,
                project=str(services.workspace),
                open_ref=ref or None,
                hints=syntax_hints(session.history) if session else None,
                labels=call_labels(session.history) if session else None,
            )
        )

    def open_output(self, event: ToolLine.OpenOutput) -> None:
        entry = event.entry
        if entry.ref is None:
            self.app.notify(
                f"This {entry.name} output was not stored (it was short enough to keep "
                "whole): Enter unfolds it in the chat."
            )
            return
        self.action_blobs(entry.ref)

    def open_record(self, event: CompactionItem.OpenRecord) -> None:

        view = self.app.view
        session = view.session if view is not None else None
        from agent_tui.frontends.tui.screens.compaction_record import (
            RecordScreen,
        )  # lazy: start-up (opened on demand)

        self.app.push_screen(RecordScreen(event.result, session, view.send if view is not None else None))  # type: ignore[arg-type]

    def action_theme(self, name: str = "") -> None:
        """/theme NAME switches; without a name, lists the themes."""

        ours = list(self.app.file_themes)
        if not name:
            self._print_block(
                "/theme",
                f"Theme: {self.app.theme}\nThemes: {', '.join(ours)}; Textual's own work "
                "too.\n/theme NAME switches; [ui] theme in config.toml sets the default.",
            )
            return
        chosen, problem = themes.pick_theme(
            name.strip(), self.app.available_themes, fallback=self.app.theme, listed=ours
        )
        if problem:
            self.app.notify(problem, severity="warning")
            return
        self.app.theme = chosen
        self._print_block(f"/theme {name.strip()}", f"Theme: {chosen}")

    def install_commands(self, trusted: bool) -> list[str]:

        return install(self.workspace, trusted)

    def action_resume(self) -> Worker[None]:
        return self.app.run_worker(self._resume(), group="resume", exclusive=True, exit_on_error=False)

    async def _resume(self) -> None:

        services = await self.app.services()
        if services is None:
            self.app.notify("The session store is not available.", severity="error")
            return
        from agent_tui.frontends.tui.screens.resume import ResumeScreen  # lazy: start-up (opened on demand)
        from agent_tui.frontends.tui.session_list import session_rows  # lazy: start-up (opened on demand)

        rows = await session_rows(services)
        chosen = await self.app.push_screen_wait_safe(ResumeScreen(rows))
        if not chosen:
            return
        if self.app.show_session(str(chosen)):
            return  # one tab per session: two would append diverging histories to one transcript
        view = self.app.view
        if view is not None and not view.busy:
            await view.open_new(str(chosen))
        else:
            await self.app.add_tab(session_id=str(chosen))

    def palette(self) -> Iterable[SystemCommand]:
        """The palette's entries beside Textual's own: every registered slash command, themes, tabs."""

        for command in slash.all_commands():
            if command.palette is not None:
                yield SystemCommand(
                    command.palette,
                    f"{command.help[:1].upper()}{command.help[1:]} ({command.usage})",
                    lambda command=command: self._palette_run(command),
                )
        for name in self.app.file_themes:
            yield SystemCommand(
                f"Theme: {name}",
                f"Switch to the {name} theme (/theme {name})",
                lambda name=name: self.action_theme(name),
            )
        yield SystemCommand("New tab", "Open another session side by side (Ctrl+T)", self.app.action_new_tab)
        yield SystemCommand("Close tab", "Close this tab (Ctrl+W)", self.app.action_close_tab)

    def _palette_run(self, command: slash.SlashCommand) -> None:
        """A command that needs an argument is typed into the input; the others run."""
        view = self.app.view
        if view is None:
            return
        if command.needs_argument:
            view.prompt.set_text(f"/{command.name} ")
            view.prompt.focus()
        else:
            self.app.run_worker(view.send(f"/{command.name}"))
