"""How a stored tool call ended, for whoever shows a session again (the resumed chat, an editor's
replay).

A tool result carries its code (`Message.outcome`) from the moment the runner makes it. Rows
stored before agent-tui kept the code have none; for those alone the text is read, with the one
rule the readers used to apply each in their own way. A new row is never judged by its text, so
an output that merely says `Permission denied` or `Error` is what the call's code says it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.base.messages import Message, Outcome


def outcome_of(message: Message) -> Outcome:
    """The code of a tool result: its own, else the one its text implies (a row from before codes)."""
    if message.outcome is not None:
        return message.outcome
    return legacy_outcome(message.content or "")


def legacy_outcome(text: str) -> Outcome:
    """What an older row's text said, by the prefixes agent-tui wrote then."""
    head = text.lstrip()[:80].lower()
    if head.startswith("permission denied"):
        return "denied"
    if head.startswith("[not run"):
        return "not_run"
    if head.startswith("[cancelled") or "cancelled by the user" in head:
        return "cancelled"
    if head.startswith("error"):
        return "error"
    return "ok"
