"""Telling the user the app wants them while they look elsewhere: a turn ended or an approval
waits, and the terminal does not have focus.

How is `[ui] notify`: `osc9` (a desktop notification in iTerm2, WezTerm, kitty, Ghostty,
Windows Terminal…), `osc777` (VTE terminals, rxvt-unicode), `bell`, `off`, or `auto`: OSC 9,
except inside tmux, where nothing is sent unless a method is chosen (tmux then gets the sequence
wrapped in its passthrough). Focus comes from Textual's AppFocus / AppBlur events (terminals
that report focus); a terminal that reports none counts as focused, so nothing is sent there
unasked. Text is made visible and stripped of what could end the sequence early.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from agent_tui.base.visible_text import visible
from agent_tui.config.schema import NOTIFY_METHODS as METHODS

__all__ = ["METHODS", "Attention", "chosen", "sequence"]
ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"


def _clean(text: str) -> str:
    return visible(text, one_line=True).replace(";", ",")[:200]


def chosen(method: str, env: Mapping[str, str]) -> str:
    """The method `auto` means here: osc9, or off inside tmux."""
    if method != "auto":
        return method
    return "off" if env.get("TMUX") else "osc9"


def sequence(method: str, title: str, body: str, *, tmux: bool) -> str:
    """The bytes that ask the terminal to notify (empty for off)."""
    if method == "bell":
        return BEL
    if method == "osc9":
        raw = f"{ESC}]9;{_clean(title)}: {_clean(body)}{BEL}"
    elif method == "osc777":
        raw = f"{ESC}]777;notify;{_clean(title)};{_clean(body)}{BEL}"
    else:
        return ""
    if tmux:  # tmux passes a wrapped sequence on to the outer terminal (allow-passthrough on)
        raw = f"{ESC}Ptmux;{raw.replace(ESC, ESC + ESC)}{ST}"
    return raw


class Attention:
    """Sends a notification when the terminal is not focused; `focused` follows AppFocus/AppBlur."""

    def __init__(
        self,
        method: Callable[[], str],
        write: Callable[[str], None],
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.method = method
        self.write = write
        self.env = os.environ if env is None else env
        self.focused = True
        self.sent: list[str] = []
        """What was sent, newest last (for /status and tests)."""

    def ping(self, title: str, body: str) -> bool:
        """Notify unless the terminal has focus or the method is off; True when sent."""
        if self.focused:
            return False
        how = chosen(self.method(), self.env)
        data = sequence(how, title, body, tmux=bool(self.env.get("TMUX")))
        if not data:
            return False
        self.write(data)
        self.sent.append(data)
        return True
