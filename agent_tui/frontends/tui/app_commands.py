"""The app's commands: the slash commands only the App can run, and the command palette.

A mixin of `AgentApp`, so the palette and `/help`, `/context`, `/blobs`, `/theme`, `/resume`,
`/quit` share one set of actions (the session view runs `/compact`, `/new` and `/model` itself).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import SystemCommand

from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.frontends.tui.widgets.compaction_item import CompactionItem
from agent_tui.frontends.tui.widgets.session_view import SessionView

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App
    from textual.screen import Screen

    from agent_tui.compose.factory import AppServices
    from agent_tui.frontends.tui import slash
    from agent_tui.tools.sandbox import Sandbox

    class _AppHost(App[None]):
        """What the mixin uses of `AgentApp`, so mypy checks it against the real App API."""

        workspace: Path

        @property
        def view(self) -> SessionView | None: ...
        async def services(self) -> AppServices | None: ...
        async def add_tab(self, *, session_id: str | None = None, continue_: bool = False) -> SessionView: ...
        def show_session(self, session_id: str) -> bool: ...
        async def push_screen_wait_safe(self, screen: Screen[Any]) -> Any: ...
        async def action_new_tab(self) -> None: ...
        def action_close_tab(self) -> object: ...
else:
    _AppHost = object


class AppCommands(_AppHost):
    """Actions behind slash commands and palette entries (mixed into `AgentApp`)."""

    def action_help(self) -> None:
        from agent_tui.frontends.tui.screens.dialogs import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            sandbox = self._sandbox()
            future = getattr(self, "_services", None)
            services = future.result() if future is not None and future.done() else None
            extensions = None
            if services is not None:
                from agent_tui.frontends.tui.slash import extensions_text

                extensions = extensions_text(services)
            self.push_screen(
                HelpScreen(sandbox=sandbox.describe() if sandbox else None, extensions=extensions)
            )

    def _sandbox(self) -> Sandbox | None:
        future = getattr(self, "_services", None)
        services = future.result() if future is not None and future.done() else None
        return services.sandbox if services is not None else None

    def _print_block(self, command: str, text: str) -> None:
        """A command's output as a block in the active tab's chat (a toast while none is open)."""
        from agent_tui.frontends.tui.command_output import show

        view = self.view
        if view is None:
            self.notify(text)
        else:
            show(view, command, text)

    def action_sandbox(self, argument: str = "") -> None:
        """/sandbox shows what the sandbox allows; `/sandbox MODE` and `/sandbox auto on|off` switch."""
        sandbox = self._sandbox()
        if sandbox is None:
            self.notify("The sandbox is not set up yet (the session is still loading).", severity="warning")
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
            self.notify(str(exc), severity="warning")
            return
        self._print_block(f"/sandbox {argument.strip()}", message + " (every tab)")
        update = getattr(self, "_update_topbar", None)
        if update is not None:
            update()

    def action_context(self) -> None:
        from agent_tui.frontends.tui.screens.context_screen import ContextScreen

        view = self.view
        if view is None or view.session is None:
            self.notify("No session with a model in this tab.", severity="warning")
            return
        # Measuring mid-turn would change the request being sent: show the last budget then.
        budget = view.budget if view.busy and view.budget else view.session.measure()
        self.push_screen(ContextScreen(view.session, budget))

    @work(group="blobs", exclusive=True, exit_on_error=False)
    async def action_blobs(self, ref: str = "") -> None:
        """The blob browser over this tab's session (at `ref`, a ref id or ctx:// URI)."""
        from agent_tui.frontends.tui.screens.blob_rows import call_labels, syntax_hints
        from agent_tui.frontends.tui.screens.blobs import BlobsScreen

        services = await self.services()
        if services is None:
            self.notify("The session store is not available.", severity="error")
            return
        if isinstance(self.screen, BlobsScreen):
            if ref:
                await self.screen.open_ref(ref)
            return
        session = self.view.session if self.view is not None else None
        self.push_screen(
            BlobsScreen(
                services.store,
                session_id=session.session_id if session else None,
                project=str(services.workspace),
                open_ref=ref or None,
                hints=syntax_hints(session.history) if session else None,
                labels=call_labels(session.history) if session else None,
            )
        )

    def on_tool_line_open_output(self, event: ToolLine.OpenOutput) -> None:
        entry = event.entry
        if entry.ref is None:
            self.notify(
                f"This {entry.name} output was not stored (it was short enough to keep "
                "whole): Enter unfolds it in the chat."
            )
            return
        self.action_blobs(entry.ref)

    def on_compaction_item_open_record(self, event: CompactionItem.OpenRecord) -> None:
        from agent_tui.frontends.tui.screens.compaction_record import RecordScreen

        view = self.view
        session = view.session if view is not None else None
        self.push_screen(RecordScreen(event.result, session, view.send if view is not None else None))  # type: ignore[arg-type]

    def action_theme(self, name: str = "") -> None:
        """/theme NAME switches; without a name, lists the themes."""
        from agent_tui.frontends.tui import themes

        ours = list(getattr(self, "file_themes", ()))
        if not name:
            self._print_block(
                "/theme",
                f"Theme: {self.theme}\nThemes: {', '.join(ours)}; Textual's own work "
                "too.\n/theme NAME switches; [ui] theme in config.toml sets the default.",
            )
            return
        chosen, problem = themes.pick_theme(
            name.strip(), self.available_themes, fallback=self.theme, listed=ours
        )
        if problem:
            self.notify(problem, severity="warning")
            return
        self.theme = chosen
        self._print_block(f"/theme {name.strip()}", f"Theme: {chosen}")

    def install_commands(self, trusted: bool) -> list[str]:
        from agent_tui.frontends.tui.custom_commands import install

        return install(self.workspace, trusted)

    @work(group="resume", exclusive=True, exit_on_error=False)
    async def action_resume(self) -> None:
        from agent_tui.frontends.tui.screens.resume import ResumeScreen
        from agent_tui.frontends.tui.session_list import session_rows

        services = await self.services()
        if services is None:
            self.notify("The session store is not available.", severity="error")
            return
        rows = await session_rows(services)
        chosen = await self.push_screen_wait_safe(ResumeScreen(rows))
        if not chosen:
            return
        if self.show_session(str(chosen)):
            return  # one tab per session: two would append diverging histories to one transcript
        view = self.view
        if view is not None and not view.busy:
            await view.open_new(str(chosen))
        else:
            await self.add_tab(session_id=str(chosen))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette: Textual's own entries, every registered slash command, themes, tabs."""
        from agent_tui.frontends.tui import slash

        yield from super().get_system_commands(screen)
        for command in slash.all_commands():
            if command.palette is not None:
                yield SystemCommand(
                    command.palette,
                    f"{command.help[:1].upper()}{command.help[1:]} ({command.usage})",
                    lambda command=command: self._palette_run(command),
                )
        for name in getattr(self, "file_themes", ()):
            yield SystemCommand(
                f"Theme: {name}",
                f"Switch to the {name} theme (/theme {name})",
                lambda name=name: self.action_theme(name),
            )
        yield SystemCommand("New tab", "Open another session side by side (Ctrl+T)", self.action_new_tab)
        yield SystemCommand("Close tab", "Close this tab (Ctrl+W)", self.action_close_tab)

    def _palette_run(self, command: slash.SlashCommand) -> None:
        """A command that needs an argument is typed into the input; the others run."""
        view = self.view
        if view is None:
            return
        if command.needs_argument:
            view.prompt.set_text(f"/{command.name} ")
            view.prompt.focus()
        else:
            self.run_worker(view.send(f"/{command.name}"))
