"""In-place rewriting with a running token total, shared by tool clearing and pruning.

Both strategies walk the conversation oldest first, replace a message with a shorter one, and
stop as soon as the whole fits the budget; this keeps the total without recounting everything
after each replacement, and only keeps a replacement that saves tokens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .result import StrategyOutcome

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter


class Rewrite:
    """The list being rewritten and its running token total."""

    def __init__(self, messages: list[Message], counter: TokenCounter, budget: int) -> None:
        self.original = messages
        self.out = list(messages)
        self.counter = counter
        self.budget = budget
        self.total = counter.count_messages(messages)
        self.changed = 0

    @property
    def fits(self) -> bool:
        return self.total <= self.budget

    def put(self, i: int, replacement: Message) -> None:
        """Replace message `i` if that saves tokens."""
        saved = self.counter.count_message(self.out[i]) - self.counter.count_message(replacement)
        if saved > 0:
            self.out[i] = replacement
            self.total -= saved
            self.changed += 1

    def outcome(self) -> StrategyOutcome:
        """What the strategy made: the input list itself when nothing was replaced."""
        if not self.changed:
            return StrategyOutcome(self.original, 0, self.total)
        return StrategyOutcome(self.out, self.changed, self.total)
