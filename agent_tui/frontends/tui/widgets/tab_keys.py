"""The keys of one tab: sending from the input, Esc (interrupt, Esc Esc rewinds), typing while
something else has focus, find, paging the chat from the input, Ctrl+B, Enter on a sub-agent's
line; a paste while something else has focus.

An object the view owns (`SessionView.keys`): the view's handlers hand it the messages and keys,
and it uses only the view's public side (`KeyedTab`: its prompt, chat, session, `send` and
`interrupt`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

from textual import events

from agent_tui.frontends.tui.screens.child import ChildScreen
from agent_tui.frontends.tui.task_commands import start_rewind
from agent_tui.frontends.tui.widgets.find_bar import FindBar
from agent_tui.frontends.tui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message

    from agent_tui.agent.session import AgentSession
    from agent_tui.frontends.tui.command_host import TabCommandHost
    from agent_tui.frontends.tui.widgets.chat import ChatPane
    from agent_tui.frontends.tui.widgets.child_lines import ChildLine
    from agent_tui.frontends.tui.widgets.tab_render import TabRenderer


class KeyedTab(Protocol):
    """What the keys use of `SessionView`: its input, chat, session, find bar and sends."""

    renderer: TabRenderer

    @property
    def commands(self) -> TabCommandHost: ...
    @property
    def app(self) -> App[Any]: ...
    @property
    def session(self) -> AgentSession | None: ...
    @property
    def chat(self) -> ChatPane: ...
    @property
    def prompt(self) -> PromptInput: ...
    @property
    def find_bar(self) -> FindBar: ...
    def interrupt(self) -> bool: ...
    async def send(self, text: str) -> None: ...


class TabKeys:
    def __init__(self, tab: KeyedTab) -> None:
        self.tab = tab

    _rewind_armed = False
    """One Esc on an empty prompt; a second opens /rewind."""

    async def message(self, message: Message) -> None:
        """A key or paste, a message from the tab's input, find bar or a sub-agent's line (the
        view's `@on`)."""
        match message:
            case events.Key():
                self.key(message)
            case events.Paste():
                self.paste(message)
            case PromptInput.Submitted():
                await self.submitted(message)
            case PromptInput.Escape():
                self.escape(message)
            case PromptInput.Jump():
                await self.jump(message)
            case PromptInput.Scroll():
                self.scroll(message)
            case FindBar.Closed():
                self.find_closed(message)
            case _:
                self.open_child(cast("ChildLine.Open", message))

    async def submitted(self, event: PromptInput.Submitted) -> None:
        event.stop()
        text = event.text
        if not text.strip():
            return
        self._rewind_armed = False
        event.prompt.remember(text)
        event.prompt.set_text("")
        await self.tab.send(text)

    def key(self, event: events.Key) -> None:
        """Typing while a tool line or the chat has focus goes to the input."""
        focused = self.tab.app.focused
        typed = bool(event.is_printable and event.character)
        # The input stops every printable key it gets, so one arriving here with the input
        # focused was dispatched to a tool line before the first typed key moved the focus:
        # it belongs to the input too, not to nobody.
        if isinstance(focused, FindBar) or (isinstance(focused, PromptInput) and not typed):
            return
        if event.key == "escape" and self.tab.interrupt():
            event.stop()
            return
        if typed and event.character:
            self.tab.prompt.focus()
            self.tab.prompt.insert(event.character)
            event.stop()
        elif event.key == "ctrl+v":  # the clipboard's picture, as in the input
            self.tab.prompt.focus()
            self.tab.prompt.action_paste()
            event.stop()
        elif event.key == "escape":
            self.tab.prompt.focus()
            event.stop()

    def paste(self, event: events.Paste) -> None:
        """A paste (a file dropped on the terminal) while a tool line or the chat has focus goes
        to the input, as typing does."""
        if isinstance(self.tab.app.focused, (PromptInput, FindBar)):
            return
        event.stop()
        self.tab.prompt.focus()
        self.tab.prompt.post_message(events.Paste(event.text))

    def to_background(self) -> None:
        """Ctrl+B: the running foreground bash call goes on in the background (/tasks)."""
        shells = self.tab.session.background if self.tab.session is not None else None
        why = shells.detach_foreground() if shells is not None else "no session in this tab"
        if why:
            self.tab.app.notify(f"Ctrl+B: {why}.", severity="warning")

    def escape(self, event: PromptInput.Escape) -> None:
        event.stop()
        if self.tab.interrupt():
            return
        # Esc Esc on an empty prompt: rewind. The first one arms it; typing disarms it.
        if self.tab.prompt.text.strip():
            self._rewind_armed = False
        elif self._rewind_armed:
            self._rewind_armed = False

            start_rewind(self.tab.commands)
        else:
            self._rewind_armed = True

    def find(self) -> None:
        """Ctrl+F: find in this tab's chat (widgets/find_bar.py)."""
        self.tab.find_bar.open(self.tab.chat)

    def find_closed(self, event: FindBar.Closed) -> None:
        event.stop()
        self.tab.prompt.focus()

    async def jump(self, event: PromptInput.Jump) -> None:
        event.stop()
        if event.top:
            await self.tab.chat.jump_top()
        else:
            self.tab.chat.jump_end()

    def scroll(self, event: PromptInput.Scroll) -> None:
        event.stop()
        if event.pages < 0:
            self.tab.chat.scroll_page_up()
        else:
            self.tab.chat.scroll_page_down()

    def open_child(self, message: ChildLine.Open) -> None:
        """Enter on a child's line: its transcript, live while it runs, with its own meter."""

        message.stop()
        session = self.tab.session
        lines = self.tab.renderer.child_lines
        line = lines.line_of(message.session_id) if lines is not None else None
        status = (lambda: line.child.line().plain.split("  ", 1)[-1]) if line is not None else None
        if session is not None and session.store is not None:
            self.tab.app.push_screen(
                ChildScreen(session.store, message.session_id, message.description, status)
            )
