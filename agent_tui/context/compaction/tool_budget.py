"""The tool-output budget: a cap on what tool outputs together may hold, applied every step.

This runs in the loop after each batch of tool results, long before the 95% threshold: when the
outputs in the conversation together pass the budget, the oldest are trimmed to the clearing
placeholder in one go, down to a low-water mark, so the next few steps do not each rewrite the
middle of the history (every rewrite costs the provider's prompt cache from that point on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .clearing import is_trimmed, trimmed_placeholder
from .shape import inflight_start

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter


def tool_output_tokens(messages: list[Message], counter: TokenCounter) -> int:
    """Tokens the tool results in the conversation hold together."""
    return sum(counter.count_message(m) for m in messages if m.role == "tool")


def trim_tool_outputs(
    messages: list[Message],
    *,
    counter: TokenCounter,
    budget_tokens: int,
    low_water: float = 0.75,
) -> tuple[list[Message], int]:
    """Trim the oldest tool outputs once all of them pass `budget_tokens`.

    Trims oldest first until the outputs hold at most `low_water × budget_tokens`. The newest
    output and the results of the step still in flight are never trimmed. Returns the new list
    (the same list object when nothing changed) and how many outputs were trimmed.
    """
    total = tool_output_tokens(messages, counter)
    if total <= budget_tokens:
        return messages, 0
    goal = int(budget_tokens * low_water)
    keep: set[int] = set()
    start = inflight_start(messages)
    if start is not None:
        keep.update(range(start + 1, len(messages)))
    newest = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "tool"), None)
    if newest is not None:
        keep.add(newest)
    out = list(messages)
    freed = trimmed = 0
    for i, m in enumerate(messages):
        if total - freed <= goal:
            break
        if m.role != "tool" or i in keep or is_trimmed(m):
            continue
        replacement = m.with_content(trimmed_placeholder(m))
        saved = counter.count_message(m) - counter.count_message(replacement)
        if saved > 0:
            out[i] = replacement
            freed += saved
            trimmed += 1
    return (out, trimmed) if trimmed else (messages, 0)
