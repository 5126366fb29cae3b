"""`agent-tui --attach URL`: the TUI over a session that `agent-tui serve` holds — on a dev box,
in a container, or beside another attached TUI. One tab (frontends/tui/widgets/attached_view.py) with the
local tab's chat, meter, approvals and sub-agent lines; /context and the blob browser are the
local screens over the server's reads; Esc interrupts the served work.

Nothing of the agent stack runs here: no store, no provider, no tools. The server's folder,
trust, sandbox and approval rules apply; this app only asks and answers.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from agent_tui.base.errors_text import one_line
from agent_tui.frontends.server.remote import RemoteStore
from agent_tui.frontends.tui import themes
from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from agent_tui.frontends.tui.screens.remote_context import RemoteContextScreen
from agent_tui.frontends.tui.textual_compat import OneLineCrashes, SteadyFooter
from agent_tui.frontends.tui.widgets.attached_view import AttachedView
from agent_tui.store import Store

if TYPE_CHECKING:
    from agent_tui.frontends.server.remote import RemoteDriver
    from agent_tui.frontends.tui.widgets.chat_items import ToolLine

log = logging.getLogger(__name__)

Opener = Callable[[], Awaitable["RemoteDriver"]]


class AttachApp(OneLineCrashes[None]):
    CSS_PATH = Path(__file__).parent / "app.tcss"
    TITLE = "agent-tui"
    BINDINGS: ClassVar = [
        Binding("ctrl+c", "interrupt", "cancel", key_display="^C", priority=True),
        Binding("ctrl+q", "quit", "quit", key_display="^Q", priority=True),
    ]

    def __init__(self, opener: Opener, *, where: str, theme_name: str | None = None) -> None:
        """`opener` connects and returns the driver of the served session."""
        super().__init__()
        self._opener = opener
        self.where = where
        self.driver: RemoteDriver | None = None
        self.view: AttachedView | None = None
        loaded = themes.load_themes()
        for theme in loaded.themes:
            self.register_theme(theme)
        names = list(dict.fromkeys(theme.name for theme in loaded.themes))
        self.theme, _problem = themes.pick_theme(
            theme_name or themes.DEFAULT_DARK, self.available_themes, listed=names
        )

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def compose(self) -> ComposeResult:
        yield Static(Text(f" agent-tui ─ attaching to {self.where}…"), id="topbar")
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.attach()

    @work(group="attach", exit_on_error=False)
    async def attach(self) -> None:
        try:
            self.driver = await self._opener()
        except Exception as exc:
            log.exception("attaching to %s failed", self.where)
            self.query_one("#topbar", Static).update(Text(f" agent-tui ─ could not attach to {self.where}"))
            self.notify(f"Could not attach: {one_line(exc, 200)}", severity="error", timeout=30)
            return
        view = AttachedView(self.driver)
        await self.mount(view, before=self.query_one(SteadyFooter))
        self.view = view  # once mounted: its input is there to type in
        self.query_one("#topbar", Static).update(
            Text(f" agent-tui ─ attached ─ {self.where} ─ session {self.driver.session_id}")
        )

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)) and self.view is not None:
            self.view.prepare()  # the user is writing the first message
        await super().on_event(event)

    async def on_unmount(self) -> None:
        if self.driver is not None:
            await self.driver.close()

    def action_interrupt(self) -> None:
        """Ctrl+C: interrupt the served work; with nothing running, quit (the server goes on)."""
        if self.view is None or not self.view.interrupt():
            self.exit()

    @work(group="context", exclusive=True, exit_on_error=False)
    async def action_context(self) -> None:

        if self.driver is None:
            return
        self.push_screen(RemoteContextScreen(await self.driver.context()))

    def action_blobs(self, ref: str = "") -> None:
        """The blob browser over the served folder's stored outputs (at `ref`)."""
        from typing import cast

        if self.driver is None:
            return
        if isinstance(self.screen, BlobsScreen):
            if ref:
                self.run_worker(self.screen.open_ref(ref), exit_on_error=False)
            return
        store = cast(Store, RemoteStore(self.driver.results))  # the reading methods the screen calls
        self.push_screen(
            BlobsScreen(store, session_id=self.driver.session_id, project=None, open_ref=ref or None)
        )

    def on_tool_line_open_output(self, event: ToolLine.OpenOutput) -> None:
        if event.entry.ref is None:
            self.notify(f"This {event.entry.name} output was not stored: Enter unfolds it in the chat.")
            return
        self.action_blobs(event.entry.ref)
