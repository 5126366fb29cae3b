"""A sub-agent's transcript, opened from its line in the chat: read-only, live while it runs.

It reads the child's stored transcript (the same rendering `read_result` gives a range) every
half second, with the child's own meter on top: its messages, the tokens they hold and, while it
runs, what its line says (state, elapsed, tokens, context %).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from agent_tui.base.units import grouped
from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui.screens.dialogs import Dialog

if TYPE_CHECKING:
    from agent_tui.store import Store


class ChildScreen(Dialog):
    REFRESH = 0.5

    def __init__(
        self, store: Store, session_id: str, description: str, status: Callable[[], str] | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.description = description
        self.status = status
        self._shown = -1

    def compose(self) -> ComposeResult:
        with Vertical(id="child", classes="dialog"):
            yield Label(
                Text(f"sub-agent: {visible(self.description, one_line=True)}  ·  {self.session_id}"),
                classes="dialog-title",
            )
            yield Static("", id="child-meter")
            with VerticalScroll(id="child-transcript"):
                yield Static("", id="child-body")
            yield Static(Text("Escape closes · read-only", style="dim"), classes="dialog-note")

    async def on_mount(self) -> None:
        await self.reload()
        self.set_interval(self.REFRESH, self.reload)

    async def reload(self) -> None:
        try:
            info = await self.store.sessions.get(self.session_id)
            lines, _ = await self.store.transcript.render(self.session_id)
        except Exception as exc:  # noqa: BLE001 - a store problem is shown, never raised
            self.query_one("#child-meter", Static).update(Text(f"cannot read it: {exc}", style="red"))
            return
        meter = f"{grouped(info.message_count)} messages · {grouped(info.tokens)} tokens stored"
        if self.status is not None:
            meter += f" · {self.status()}"
        self.query_one("#child-meter", Static).update(Text(meter))
        if len(lines) != self._shown:
            self._shown = len(lines)
            self.query_one("#child-body", Static).update(Text(visible("\n".join(lines[-2000:]))))
            self.query_one("#child-transcript", VerticalScroll).scroll_end(animate=False)
