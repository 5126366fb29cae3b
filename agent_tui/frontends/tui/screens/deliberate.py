"""Decisions that take a deliberate act: the approval, trust and rewind dialogs.

A dialog opens while the user is writing their next message (the README invites it). With
letters as keys, `make a change also` approved a write with the `a` of "also" and a `d` in
"queued" denied a call. So a dialog decides only on a key the user meant for it:
- its choices are numbered: a digit selects one, Enter confirms the selection (Esc always
  refuses, the one answer that cannot hurt);
- nothing decides until `ARM_SECONDS` after the dialog appeared, nor while the user is typing
  (a printable key less than `TYPING_GAP` after the previous one is part of a sentence, digits
  included), nor by Enter after text was typed until a choice is made again;
- every character typed into the dialog goes on to the message being written, so nothing is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.widgets import Button

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer

ARM_SECONDS = 0.5
"""How long a dialog ignores decisions after it appeared (keys already on their way)."""
TYPING_GAP = 0.5
"""A printable key closer than this to the previous one is typing, not a choice."""


class Deliberate:
    """Mixed into a ModalScreen whose choices are Buttons; `CHOICES` lists their ids, in the
    order of their numbers."""

    CHOICES: tuple[str, ...] = ()
    armed: bool = False
    """True while a choice key counts: from `ARM_SECONDS` after the dialog appeared, and again
    `TYPING_GAP` after the last key typed (tests wait for it, as a user's eye would)."""
    typed: str = ""
    """What was typed while the dialog was open and no message input could take it."""
    _typed_since_choice: bool = False
    _arm_timer: Timer | None = None

    def arm_later(self: Any, delay: float = ARM_SECONDS) -> None:
        """Call from on_mount; called again by every key typed (the sentence goes on)."""
        self.armed = False
        if self._arm_timer is not None:
            self._arm_timer.stop()
        self._arm_timer = self.set_timer(delay, self._arm)

    def _arm(self) -> None:
        self.armed = True

    def choices(self) -> tuple[str, ...]:
        """The ids of the buttons on show, numbered from 1."""
        screen: Screen[Any] = self  # type: ignore[assignment]
        return tuple(c for c in self.CHOICES if screen.query(f"#{c}"))

    def may_decide(self) -> bool:
        """Whether a choice made now is the user's deliberate act."""
        return self.armed and not self._typed_since_choice

    def on_key(self, event: events.Key) -> None:
        if not (event.is_printable and event.character):
            return
        event.stop()
        event.prevent_default()
        char = event.character
        choices = self.choices()
        if char.isdigit() and self.armed and 1 <= int(char) <= len(choices):
            screen: Screen[Any] = self  # type: ignore[assignment]
            screen.query_one(f"#{choices[int(char) - 1]}", Button).focus()
            self._typed_since_choice = False
            return
        self._typed_since_choice = True
        self.arm_later(TYPING_GAP)
        self._keep_typed(char)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if self.armed:
            self._typed_since_choice = False  # Tab or a click moved the focus: a choice was made

    def _keep_typed(self, char: str) -> None:
        """The character goes to the message input behind the dialog (or is kept here)."""
        screen: Screen[Any] = self  # type: ignore[assignment]
        try:
            prompt = screen.app.view.prompt  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - no session view (yet): keep it on the dialog
            prompt = None
        if prompt is None:
            self.typed += char
        else:
            prompt.insert(char)
