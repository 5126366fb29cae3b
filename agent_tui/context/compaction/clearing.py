"""Tool-output clearing: the cheapest strategy, and the one that loses nothing.

Old tool outputs are the bulk of a long agent session and every one of them is stored whole in
the blob store, so replacing the oldest with `[tool output trimmed; ref=…]` frees the most room
for the least loss. The newest outputs are protected by a token window rather than a number of
turns: one long autonomous turn can hold dozens of calls, and a turn-based window would protect
all of them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui.base.messages import Message

from .ref_labels import extent
from .rewrite import Rewrite
from .shape import TRIMMED_PREFIX, call_index, inflight_start, other_refs

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter

    from .result import CompactionPlan, StrategyOutcome

log = logging.getLogger(__name__)

NO_REF_HEAD_CHARS = 200
"""How much of an output with no stored copy a placeholder keeps."""


def trimmed_placeholder(message: Message) -> str:
    """`[tool output trimmed; ref=r_1 (bash, 20 KB, 420 lines)]`; refs the text named are listed so none is lost, and an
    output with no stored copy keeps its head and says it cannot be brought back."""
    text = message.content or ""
    mentioned = "".join(f"; it named ref={r}" for r in other_refs(message))
    ref = message.output_ref
    if ref is not None:
        what = f"{message.name or ref.tool_name}, {extent(ref.byte_size, ref.line_count)}"
        return f"{TRIMMED_PREFIX}; ref={ref.id} ({what}){mentioned}]"
    head = " ".join(text[:NO_REF_HEAD_CHARS].split())
    more = "…" if len(text) > NO_REF_HEAD_CHARS else ""
    return f"{TRIMMED_PREFIX}; not retrievable: no stored copy{mentioned}; it began: {head}{more}]"


def is_trimmed(message: Message) -> bool:
    return message.role == "tool" and (message.content or "").startswith(TRIMMED_PREFIX)


def protected_indices(messages: Sequence[Message], counter: TokenCounter, protected_tokens: int) -> set[int]:
    """Tool messages that stay as they are: the in-flight step's results, the newest output,
    then newer-first outputs while they fit in `protected_tokens`."""
    protected: set[int] = set()
    start = inflight_start(messages)
    if start is not None:
        protected.update(range(start + 1, len(messages)))
    used = sum(counter.count_message(messages[i]) for i in protected)
    first = not protected  # the newest output is protected already when it is in flight
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.role != "tool" or i in protected:
            continue
        cost = counter.count_message(m)
        if not first and used + cost > protected_tokens:
            break
        protected.add(i)
        used += cost
        first = False
    return protected


def protected_from(messages: Sequence[Message], counter: TokenCounter, protected_tokens: int) -> int:
    """Index where the protected recent window begins (the call owning its oldest output);
    `len(messages)` when there is no tool output at all."""
    protected = protected_indices(messages, counter, protected_tokens)
    if not protected:
        return len(messages)
    oldest = min(protected)
    owner = call_index(messages).get(messages[oldest].tool_call_id or "")
    return min(owner[0], oldest) if owner else oldest


def clear_tool_outputs(
    messages: list[Message], plan: CompactionPlan, counter: TokenCounter
) -> StrategyOutcome:
    """Replace the oldest unprotected tool outputs with placeholders until under the budget."""
    r = Rewrite(messages, counter, plan.conversation_budget)
    if r.fits:
        return r.outcome()
    for i in range(protected_from(messages, counter, plan.protected_tokens)):
        if r.fits:
            break
        m = r.out[i]
        if m.role == "tool" and not is_trimmed(m):
            r.put(i, m.with_content(trimmed_placeholder(m)))
    if r.changed:
        log.debug("tool clearing: %d outputs trimmed, %d tokens left", r.changed, r.total)
    return r.outcome()
