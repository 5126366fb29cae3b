"""The input: multi-line, Enter sends, history on Up/Down, slash-command completion under it.

Enter sends; Shift+Enter or Ctrl+J insert a newline (many terminals cannot tell Shift+Enter from
Enter, Ctrl+J always works). Up on the first line and Down on the last walk the history of what was
sent. Typing `/` opens a menu of commands below the input; Up/Down move in it, Tab or Enter
complete, Escape closes it. Typing `@` offers the workspace's files the same way (the file is
attached when the message is sent). Tab never moves focus out of the input: it completes a
command, an `@` mention or a workspace path, or does nothing. Ctrl+L clears the whole input (it
goes to the history first, so Up brings it back). PageUp/PageDown scroll the chat above.
A pasted path of a picture, or Ctrl+V's clipboard picture, goes in as a chip (prompt_pictures.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from agent_tui.frontends.tui import slash
from agent_tui.frontends.tui.pasted import Pastes, is_long
from agent_tui.frontends.tui.path_complete import complete_mention, complete_word, path_completions
from agent_tui.frontends.tui.vim_keys import VimKeys
from agent_tui.frontends.tui.widgets.prompt_pictures import PictureArea
from agent_tui.llm.catalog import chat_models

if TYPE_CHECKING:
    from agent_tui.frontends.tui.vim_keys import VimKeys

NEWLINE_KEYS = ("shift+enter", "ctrl+j")
CLEAR_KEY = "ctrl+l"
PATH_ID = "path:"
"""Option ids of @ completions carry this prefix (command ids are bare names)."""
MODEL_ID = "model:"
"""Option ids of `/model NAME` completions carry this prefix."""
MODEL_OPTIONS = 12
"""Model names the menu lists at once (the list narrows as the name is typed)."""


def model_completions(text: str, current: str | None) -> list[str]:
    """Known model names for `/model PREFIX` (the current model first), or [] for other text."""
    if not text.startswith("/model ") or "\n" in text:
        return []
    prefix = text[len("/model ") :]
    if " " in prefix:
        return []

    names = ([current] if current else []) + chat_models()
    found = [
        n
        for n in dict.fromkeys(names)
        if n.startswith(prefix) or ("/" in n and n.split("/", 1)[1].startswith(prefix))
    ]
    if prefix in found:  # a whole name leads, so the highlight Enter takes is what was typed
        found.remove(prefix)
        found.insert(0, prefix)
    return [] if found == [prefix] else found[:MODEL_OPTIONS]


class CommandMenu(OptionList):
    """The completion dropdown. Never takes focus: the input drives it."""

    can_focus = False
    shown_for: str | None = None
    """The text the options were built for: Enter typed before the menu caught up with the
    input (its Changed message comes after queued keys) must not act on an older list."""

    def show_for(self, text: str, workspace: Path | None = None, model: str | None = None) -> bool:
        self.shown_for = text
        models = model_completions(text, model)
        if models:
            self.clear_options()
            self.add_options(
                Option(Text.assemble(("/model ", "dim"), (n, "bold")), id=MODEL_ID + n) for n in models
            )
            self.highlighted = 0
            self.display = True
            return True
        matches = slash.completions(text)
        paths = path_completions(text, workspace) if not matches and workspace else []
        if paths:
            self.clear_options()
            self.add_options(Option(Text.assemble(("@", "bold"), p), id=PATH_ID + p) for p in paths)
            self.highlighted = 0
            self.display = True
            return True
        if not matches:
            if self.display:  # most keystrokes: nothing to show and nothing shown
                self.display = False
            return False
        self.clear_options()
        width = max(len(c.usage) for c in matches) + 3
        self.add_options(
            Option(Text.assemble((c.usage.ljust(width), "bold"), c.help), id=c.name) for c in matches
        )
        self.highlighted = 0
        self.display = True
        return True

    def hide(self) -> None:
        self.display = False

    @property
    def choice(self) -> slash.SlashCommand | str | None:
        """The highlighted command, or a path (str) when completing an `@` mention."""
        option = self.highlighted_option if self.display else None
        if option is None or not option.id:
            return None
        if option.id.startswith(PATH_ID):
            return option.id[len(PATH_ID) :]
        if option.id.startswith(MODEL_ID):
            return option.id  # the whole id: `_complete` writes `/model NAME`
        return slash.lookup(option.id)


class PromptInput(PictureArea):
    """The multi-line input; posts `Submitted` and leaves clearing to whoever handles it."""

    @dataclass
    class Submitted(Message):
        prompt: PromptInput
        text: str

    @dataclass
    class Escape(Message):
        """Escape with no menu open: the session view interrupts a running turn."""

        prompt: PromptInput

    @dataclass
    class Scroll(Message):
        """PageUp / PageDown typed in the input: scroll the chat, not the (short) input."""

        pages: int

    @dataclass
    class Jump(Message):
        """Home / End on an empty input (or Ctrl+Home / Ctrl+End): the chat's first or last message."""

        top: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            highlight_cursor_line=False,
            placeholder="Ask anything · / for commands · Enter sends, Ctrl+J newline",
        )
        # A steady cursor, as Claude Code's: a blinking one redraws the screen twice a second for
        # as long as the prompt sits idle (~17 ms of CPU a second; issue 31).
        self.cursor_blink = False
        self.sent_history: list[str] = []
        self._history_at: int | None = None  # index into history while browsing it
        self._draft = ""
        self.menu: CommandMenu | None = None
        self._menu_dismissed: str | None = None  # text the menu was closed on (stays closed)
        self.pastes = Pastes()
        """Long pastes shown as chips until the message is sent (frontends/tui/pasted.py)."""
        self.vim: VimKeys | None = None
        """Vim keys (`[ui] editing_mode = "vim"`, frontends/tui/vim_keys.py); None: the usual keys."""

    def set_editing_mode(self, mode: str, show: Callable[[str], None]) -> None:
        """`vim` turns vim keys on (starting in insert mode, `show` told each mode); else off."""
        if mode != "vim":
            self.vim = None
            show("")
            return

        self.vim = VimKeys(self, lambda now: show(f"-- {now.upper()} --"))
        self.vim.set_mode("insert")

    def remember(self, text: str) -> None:
        """Add a sent text to the history (not twice in a row)."""
        if text.strip() and (not self.sent_history or self.sent_history[-1] != text):
            self.sent_history.append(text)
        self._history_at = None

    def set_text(self, text: str) -> None:
        """Replace the content and put the cursor at its end."""
        if not text:
            self.pastes.clear()
        self.load_text(text)
        self.move_cursor(self.document.end)

    async def _on_paste(self, event: events.Paste) -> None:
        """A dropped picture's path and a long paste go in as a chip; a short one as itself
        (TextArea's own handler runs after this one unless the default is prevented)."""
        if self.read_only:
            return
        if await self._paste_pictures(event.text):
            event.prevent_default()
            return
        if not is_long(event.text):
            return
        event.prevent_default()
        self.insert(self.pastes.chip(event.text))
        self.focus()

    @property
    def message(self) -> str:
        """What Enter sends: the text with every paste chip replaced by its paste."""
        return self.pastes.expand(self.text)

    def on_key(self, event: events.Key) -> None:
        # Runs before TextArea's own key handler; prevent_default() keeps that one from
        # also acting on the keys the prompt takes (Enter sends, arrows move the menu).
        menu_open = self.menu is not None and self.menu.display
        if self.vim is not None and not menu_open and self.vim.handle(event.key, event.character):
            event.stop()
            event.prevent_default()
            return
        if self._handle(event.key):
            event.stop()
            event.prevent_default()

    def _handle(self, key: str) -> bool:
        menu = self.menu if self.menu is not None and self.menu.display else None
        if key in NEWLINE_KEYS:
            self.insert("\n")
            return True
        if menu is not None and key == "enter" and menu.shown_for != self.text:
            # The menu lags what was typed: bring it up to date before Enter reads it.
            self._update_menu()
            menu = self.menu if self.menu is not None and self.menu.display else None
        if menu is not None:
            if key in ("up", "down"):
                menu.action_cursor_up() if key == "up" else menu.action_cursor_down()
                return True
            if key == "escape":
                self._menu_dismissed = self.text
                menu.hide()
                return True
            if key == "tab" or (key == "enter" and self._completes(menu.choice)):
                self._complete(menu.choice)
                return True
        if key == "escape":
            self.post_message(self.Escape(self))
            return True
        if key == "tab":
            self._complete_path()
            return True  # never a focus change: the user's next keys must land here
        if key == CLEAR_KEY:
            self.remember(self.text)
            self.set_text("")
            return True
        if key == "enter":
            self.post_message(self.Submitted(self, self.message))
            return True
        if key in ("ctrl+home", "ctrl+end") or (key in ("home", "end") and not self.text):
            self.post_message(self.Jump(top=key.endswith("home")))
            return True
        if key in ("pageup", "pagedown"):
            self.post_message(self.Scroll(-1 if key == "pageup" else 1))
            return True
        if key == "up" and self.cursor_at_first_line and self.sent_history:
            self._browse(-1)
            return True
        if key == "down" and self.cursor_at_last_line and self._history_at is not None:
            self._browse(+1)
            return True
        return False

    def _completes(self, command: slash.SlashCommand | str | None) -> bool:
        """Enter completes a partly typed name or an @ path; on a whole name it sends."""
        if isinstance(command, str) and command.startswith(MODEL_ID):
            return self.text.strip() != f"/model {command[len(MODEL_ID) :]}"
        if isinstance(command, str):  # an @ path: typed whole already, Enter sends
            return complete_mention(self.text, command).rstrip() != self.text.rstrip()
        if slash.parse(self.text) is not None:
            return False  # a whole command's name: run exactly that, whatever is highlighted
        return command is not None and self.text.strip() != f"/{command.name}"

    def _complete(self, command: slash.SlashCommand | str | None) -> None:
        if command is None:
            return
        if isinstance(command, str) and command.startswith(MODEL_ID):
            text = f"/model {command[len(MODEL_ID) :]}"
        elif isinstance(command, str):
            text = complete_mention(self.text, command)
        else:
            text = f"/{command.name}" + (" " if command.takes_argument else "")
        self._menu_dismissed = text
        self.set_text(text)
        if self.menu is not None:
            self.menu.hide()

    def _complete_path(self) -> None:
        """Tab with no menu: complete the workspace path being typed at the end, if any."""
        workspace = getattr(self.app, "workspace", None)
        if workspace is None or self.cursor_location != self.document.end:
            return
        completed = complete_word(self.text, workspace)
        if completed is not None and completed != self.text:
            self.set_text(completed)

    def _browse(self, step: int) -> None:
        if self._history_at is None:
            self._draft = self.text
            at = len(self.sent_history)
        else:
            at = self._history_at
        at += step
        if at >= len(self.sent_history):
            self._history_at = None
            self.set_text(self._draft)
            return
        self._history_at = max(0, at)
        self.set_text(self.sent_history[self._history_at])

    @on(TextArea.Changed)
    def _update_menu(self) -> None:
        if self.menu is None:
            return
        if self.text == self._menu_dismissed:
            self.menu.hide()
        else:
            self._menu_dismissed = None
            self.menu.show_for(self.text, getattr(self.app, "workspace", None), self._current_model())

    def _current_model(self) -> str | None:
        view = next((a for a in self.ancestors if hasattr(a, "session")), None)
        session = getattr(view, "session", None)
        return getattr(session, "model", None)


class PromptArea(Vertical):
    """The input and its completion menu."""

    def compose(self) -> ComposeResult:
        prompt = PromptInput(id="prompt")
        menu = CommandMenu(id="command-menu")
        menu.display = False
        prompt.menu = menu
        mode = Static("", id="editing-mode")
        mode.display = False
        yield prompt
        yield mode
        yield menu

    def set_editing_mode(self, mode: str) -> None:
        """`[ui] editing_mode`: vim keys with their mode shown under the input, or the usual keys."""
        label = self.query_one("#editing-mode", Static)

        def show(text: str) -> None:
            label.update(text)
            label.display = bool(text)

        self.input.set_editing_mode(mode, show)

    @property
    def input(self) -> PromptInput:
        return self.query_one(PromptInput)

    @on(OptionList.OptionSelected, "#command-menu")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or ""
        choice: slash.SlashCommand | str | None = slash.lookup(option_id)
        if option_id.startswith(PATH_ID):
            choice = option_id[len(PATH_ID) :]
        elif option_id.startswith(MODEL_ID):
            choice = option_id
        self.input._complete(choice)
        self.input.focus()
