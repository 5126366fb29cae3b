"""Keys typed while the TUI starts are the user's first message.

A Claude Code user runs `agent-tui` and types at once. Those keys reach the app before its
input has focus (the tab strip has it for a moment), so Enter and Backspace were lost, and the
terminal was still in line mode when they were typed, so Enter arrives as a line feed — which
the input takes as Ctrl+J, a new line. A key read before the first frame goes to the input, and
a line feed among such keys is Enter.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual import events

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App

    from agent_tui.frontends.tui.widgets.prompt import PromptInput


class TypeAhead:
    """Routes the keys read before the app showed its first frame."""

    def __init__(self) -> None:
        self.shown_at: float | None = None
        """When the first frame was drawn (Textual stamps events with the monotonic clock)."""

    def shown(self) -> None:
        self.shown_at = time.monotonic()

    def route(
        self, app: App[Any], prompt_of: Callable[[], PromptInput | None], event: events.Event
    ) -> events.Event:
        """The event to dispatch in place of `event`; the input gets the focus first when a
        key typed ahead would otherwise land elsewhere."""
        if not isinstance(event, events.Key) or event.is_forwarded:
            return event
        if self.shown_at is not None and event.time >= self.shown_at:
            return event
        prompt = prompt_of()
        if prompt is None or app.screen is not app.screen_stack[0]:
            return event  # a dialog opened at start (the trust question) takes its own keys
        if app.focused is not prompt:
            app.set_focus(prompt)  # at once: this key and those queued after it go to the input
        if event.key == "ctrl+j":
            enter = events.Key("enter", "\r")
            enter.time = event.time
            return enter
        return event
