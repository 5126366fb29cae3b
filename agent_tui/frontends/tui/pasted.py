"""Long pastes stand in the input as one chip, `[pasted 300 lines #1]`, until they are sent.

A 300-line log pasted into the input filled the whole screen until it went out, and the chat then
echoed every line. The input keeps the text aside and shows the chip; Enter sends the whole text
(the chip replaced by it), and the chat shows a long message folded (frontends/tui/widgets/chat_items).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.base.units import lines

FOLD_LINES = 10
"""A paste of more lines than this (or of more than FOLD_CHARS characters) becomes a chip."""
FOLD_CHARS = 2000


def line_breaks(text: str) -> str:
    """`text` with `\n` line breaks: terminals send a paste's breaks as `\r` (tmux, xterm), and
    a Windows clipboard as `\r\n`; the model must get lines, not one line joined by `\r`."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def is_long(text: str) -> bool:
    text = line_breaks(text)
    return text.count("\n") + 1 > FOLD_LINES or len(text) > FOLD_CHARS


@dataclass
class Pastes:
    """The long pastes of the message being typed, by chip."""

    held: dict[str, str] = field(default_factory=dict)
    sent: dict[str, str] = field(default_factory=dict)
    """The chips of the message that went out last, for `fold` when it comes back."""

    def chip(self, text: str) -> str:
        """Keep `text` and return the chip that stands for it in the input."""
        text = line_breaks(text)
        count = text.rstrip("\n").count("\n") + 1
        size = lines(count) if count > 1 else f"{len(text)} characters"
        chip = f"[pasted {size} #{len(self.held) + 1}]"
        self.held[chip] = text
        return chip

    def expand(self, text: str) -> str:
        """The message as it is sent: every chip still in it replaced by its paste."""
        for chip, pasted in self.held.items():
            text = text.replace(chip, pasted)
        return text

    def fold(self, text: str) -> str:
        """A message put back in the input (its send failed, Esc stopped it): each paste it
        holds becomes its chip again — it came back as 40 raw lines."""
        for chip, pasted in self.sent.items():
            if pasted in text:
                text = text.replace(pasted, chip, 1)
                self.held[chip] = pasted
        return text

    def clear(self) -> None:
        if self.held:
            self.sent = dict(self.held)
        self.held.clear()
