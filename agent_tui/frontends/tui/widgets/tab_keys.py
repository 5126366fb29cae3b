"""The keys of one tab: sending from the input, Esc (interrupt, Esc Esc rewinds), typing while
something else has focus, find, paging the chat from the input, Ctrl+B, Enter on a sub-agent's
line; a paste while something else has focus.

A mixin of `SessionView` that uses only the view's public side (its prompt, chat, session,
`send` and `interrupt`); named handlers, so Textual finds them through the class hierarchy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from agent_tui.frontends.tui.widgets.find_bar import FindBar
from agent_tui.frontends.tui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.widget import Widget

    from agent_tui.frontends.tui.command_host import TabCommandHost
    from agent_tui.frontends.tui.widgets.chat import ChatPane
    from agent_tui.frontends.tui.widgets.child_lines import ChildLine
    from agent_tui.frontends.tui.widgets.tab_render import TabRenderer

    class _Tab(Widget, TabCommandHost):
        """What the keys use of `SessionView` (a widget and a command host), so mypy checks
        them against it."""

        renderer: TabRenderer

        @property
        def chat(self) -> ChatPane: ...
        @property
        def prompt(self) -> PromptInput: ...
        def interrupt(self) -> bool: ...
else:
    _Tab = object


class TabKeys(_Tab):
    _rewind_armed = False
    """One Esc on an empty prompt; a second opens /rewind."""

    async def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        event.stop()
        text = event.text
        if not text.strip():
            return
        self._rewind_armed = False
        event.prompt.remember(text)
        event.prompt.set_text("")
        await self.send(text)

    def on_key(self, event: events.Key) -> None:
        """Typing while a tool line or the chat has focus goes to the input."""
        focused = self.app.focused
        typed = bool(event.is_printable and event.character)
        # The input stops every printable key it gets, so one arriving here with the input
        # focused was dispatched to a tool line before the first typed key moved the focus:
        # it belongs to the input too, not to nobody.
        if isinstance(focused, FindBar) or (isinstance(focused, PromptInput) and not typed):
            return
        if event.key == "escape" and self.interrupt():
            event.stop()
            return
        if typed and event.character:
            self.prompt.focus()
            self.prompt.insert(event.character)
            event.stop()
        elif event.key == "ctrl+v":  # the clipboard's picture, as in the input
            self.prompt.focus()
            self.prompt.action_paste()
            event.stop()
        elif event.key == "escape":
            self.prompt.focus()
            event.stop()

    def on_paste(self, event: events.Paste) -> None:
        """A paste (a file dropped on the terminal) while a tool line or the chat has focus goes
        to the input, as typing does."""
        if isinstance(self.app.focused, (PromptInput, FindBar)):
            return
        event.stop()
        self.prompt.focus()
        self.prompt.post_message(events.Paste(event.text))

    def action_to_background(self) -> None:
        """Ctrl+B: the running foreground bash call goes on in the background (/tasks)."""
        shells = self.session.background if self.session is not None else None
        why = shells.detach_foreground() if shells is not None else "no session in this tab"
        if why:
            self.app.notify(f"Ctrl+B: {why}.", severity="warning")

    def on_prompt_input_escape(self, event: PromptInput.Escape) -> None:
        event.stop()
        if self.interrupt():
            return
        # Esc Esc on an empty prompt: rewind. The first one arms it; typing disarms it.
        if self.prompt.text.strip():
            self._rewind_armed = False
        elif self._rewind_armed:
            self._rewind_armed = False
            from agent_tui.frontends.tui.task_commands import start_rewind

            start_rewind(self)
        else:
            self._rewind_armed = True

    def action_find(self) -> None:
        """Ctrl+F: find in this tab's chat (widgets/find_bar.py)."""
        self.query_one(FindBar).open(self.chat)

    def on_find_bar_closed(self, event: FindBar.Closed) -> None:
        event.stop()
        self.prompt.focus()

    async def on_prompt_input_jump(self, event: PromptInput.Jump) -> None:
        event.stop()
        if event.top:
            await self.chat.jump_top()
        else:
            self.chat.jump_end()

    def on_prompt_input_scroll(self, event: PromptInput.Scroll) -> None:
        event.stop()
        if event.pages < 0:
            self.chat.scroll_page_up()
        else:
            self.chat.scroll_page_down()

    def on_child_line_open(self, message: ChildLine.Open) -> None:
        """Enter on a child's line: its transcript, live while it runs, with its own meter."""
        from agent_tui.frontends.tui.screens.child import ChildScreen

        message.stop()
        session = self.session
        lines = self.renderer.child_lines
        line = lines.line_of(message.session_id) if lines is not None else None
        status = (lambda: line.child.line().plain.split("  ", 1)[-1]) if line is not None else None
        if session is not None and session.store is not None:
            self.app.push_screen(ChildScreen(session.store, message.session_id, message.description, status))
