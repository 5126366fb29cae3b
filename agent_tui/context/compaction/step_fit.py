"""The step in flight is budgeted too: its outputs cut to fit what the window has left.

Compaction protects the newest step (the model has not seen its results yet), so a reply of 28
calls whose views together pass the window left the chain with "nothing old enough to summarise;
no enabled strategy could free anything" and the turn ended. This is the step that frees room
from the newest step itself: each of its results keeps an equal share of the room, its head and
the ref that brings back the rest (`read_result`), so nothing is lost and the next request fits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .clearing import trimmed_placeholder
from .shape import inflight_start

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter

CHARS_PER_TOKEN = 3
"""How much text one token's share keeps (low on purpose: ids and numbers tokenise densely)."""
MIN_SHARE = 24
"""Tokens below which a result keeps only its placeholder (ref, tool, size)."""


def fit_step_outputs(
    messages: list[Message], *, counter: TokenCounter, room_tokens: int
) -> tuple[list[Message], int]:
    """The newest step's tool results cut so together they hold at most `room_tokens` (in the
    counter's tokens). Returns the new list (the same object when nothing changed) and how many
    results were cut."""
    results = step_results(messages)
    costs = {i: counter.count_message(messages[i]) for i in results}
    if not results or sum(costs.values()) <= room_tokens:
        return messages, 0
    share = max(room_tokens, 0) // len(results)
    out = list(messages)
    cut = 0
    for i in results:
        if costs[i] <= share:
            continue
        out[i] = messages[i].with_content(_view(messages[i], share, counter))
        cut += 1
    return (out, cut) if cut else (messages, 0)


def step_results(messages: list[Message]) -> list[int]:
    """Indexes of the newest step's tool results (none when the history does not end in one)."""
    start = inflight_start(messages)
    if start is None:
        return []
    return [i for i in range(start + 1, len(messages)) if messages[i].role == "tool"]


def _view(message: Message, share: int, counter: TokenCounter) -> str:
    placeholder = trimmed_placeholder(message)
    note = "\n[… cut to fit the window with the other results of this step] "
    room = share - counter.count_text(note + placeholder)
    if room < MIN_SHARE:
        return placeholder
    text = message.content or ""
    head = text[: room * CHARS_PER_TOKEN]
    for _ in range(3):  # digits and ids make more tokens per character than prose: measure
        tokens = counter.count_text(head)
        if tokens <= room:
            break
        head = head[: max(int(len(head) * room / tokens) - 8, 0)]
    return head + note + placeholder
