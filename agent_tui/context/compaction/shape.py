"""How a conversation is put together: turns, tool-call groups, the in-flight step, refs.

Every strategy cuts or rewrites the history, and every cut must respect the same structure: an
assistant message with tool calls and the results that answer it move as one unit, a turn starts
at a user's chat message, and the step the model has not answered yet stays whole. Reading that
structure lives here once, so the strategies cannot disagree about it.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from agent_tui.base.messages import Message, ToolCall

TRIMMED_PREFIX = "[tool output trimmed"
"""Start of the placeholder clearing leaves; recognised so nothing is trimmed twice."""

# `ref=r_1`, `ref_id="r_1"`, `"ref_id": "r_1"`, `ref: r_1` — the forms views, placeholders and
# tool-call arguments use. No space before `=` so code like `ref = node` is not taken for one.
_REF_TEXT = re.compile(r"""\bref(?:_id)?["']?(?:=|:\s*)["']?([A-Za-z0-9][A-Za-z0-9_.\-]*[A-Za-z0-9])""")
_ID_SHAPE = re.compile(r"[0-9_]")
# The store's own id shape (`agent_tui.store.refs.REF_RE`): found bare too, as in a view footer's
# "stored whole as ref r_0123456789" or inside a `ctx://<project>/<session>/<ref>` URI.
# Copied, not imported: importing the store package pulls in its database code.
_STORE_ID = re.compile(r"\br_[0-9a-f]{10}\b")
_RANGE_ID = re.compile(r"m_\d+-\d+")
"""A transcript range (`m_12-340`): not an output to carry forward, the compaction line names it."""


def is_user_chat(message: Message) -> bool:
    """A message the user typed or pasted (not a summary, retain block or note)."""
    return message.role == "user" and message.kind in ("chat", "attachment")


def turn_starts(messages: Sequence[Message]) -> list[int]:
    """Indices where a turn starts: a user chat message not directly after another one."""
    starts: list[int] = []
    previous_user = False
    for i, message in enumerate(messages):
        current = is_user_chat(message)
        if current and not previous_user:
            starts.append(i)
        previous_user = current
    return starts


def newest_user_index(messages: Sequence[Message]) -> int | None:
    """The newest message the user typed (kind chat): it must survive every compaction."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.role == "user" and m.kind == "chat":
            return i
    return None


def inflight_start(messages: Sequence[Message]) -> int | None:
    """Index of the trailing assistant message with tool calls when only its results follow.

    That step is still in flight: the model has not seen its results (or, for `compact_context`,
    they are not even written yet), so it is kept whole and in place.
    """
    i = len(messages) - 1
    while i >= 0 and messages[i].role == "tool":
        i -= 1
    if i >= 0 and messages[i].role == "assistant" and messages[i].tool_calls:
        return i
    return None


def leading_system(messages: Sequence[Message]) -> int:
    """How many system messages open the list (normally none: the prompt is built per turn)."""
    n = 0
    while n < len(messages) and messages[n].role == "system":
        n += 1
    return n


@dataclass(frozen=True)
class Unit:
    """Messages that move together: one message, or an assistant call with its results."""

    start: int
    end: int
    """Exclusive."""
    complete: bool = True
    """False for a call group missing some results (the in-flight step, or a damaged history)."""


def units(messages: Sequence[Message]) -> list[Unit]:
    """Split the list into units, in order. A tool message not answering the call before it is
    a unit of its own (an orphan; `check_invariants` reports it)."""
    out: list[Unit] = []
    i, n = 0, len(messages)
    while i < n:
        m = messages[i]
        if m.role == "assistant" and m.tool_calls:
            wanted = {c.id for c in m.tool_calls}
            j = i + 1
            while j < n and messages[j].role == "tool" and messages[j].tool_call_id in wanted:
                wanted.discard(messages[j].tool_call_id)
                j += 1
            out.append(Unit(i, j, complete=not wanted))
            i = j
        else:
            out.append(Unit(i, i + 1))
            i += 1
    return out


def call_index(messages: Sequence[Message]) -> dict[str, tuple[int, ToolCall]]:
    """Tool call id → (index of the assistant message, the call)."""
    index: dict[str, tuple[int, ToolCall]] = {}
    for i, m in enumerate(messages):
        for call in m.tool_calls:
            index[call.id] = (i, call)
    return index


def text_refs(text: str | None) -> list[str]:
    """Ref ids a text names (`ref=r_1`, `"ref_id": "r_1"`, a store id anywhere, in a URI too)."""
    if not text or ("ref" not in text and "r_" not in text):
        return []
    found = [m.group(1) for m in _REF_TEXT.finditer(text)]
    # A bare word after `ref=` in prose or code is not an id; ids carry a digit or underscore.
    found = [r for r in found if _ID_SHAPE.search(r) and not _RANGE_ID.fullmatch(r)]
    return found + _STORE_ID.findall(text)


K = TypeVar("K")
V = TypeVar("V")


def weak_cache(fn: Callable[[K], V]) -> Callable[[K], V]:
    """Memoise a function of an immutable message or call for as long as the object lives (an
    lru_cache would keep whole tool outputs alive long after compaction dropped them)."""
    cache: weakref.WeakKeyDictionary[K, V] = weakref.WeakKeyDictionary()

    def cached(key: K) -> V:
        try:
            hit: V = cache[key]
            return hit
        except KeyError:
            value = cache[key] = fn(key)
            return value

    cached.__doc__ = fn.__doc__
    return cached


@weak_cache
def message_refs(message: Message) -> tuple[str, ...]:
    """Every ref a message carries: its own stored output, and those its text or calls name."""
    refs: list[str] = []
    if message.output_ref is not None:
        refs.append(message.output_ref.id)
    refs += text_refs(message.content)
    for call in message.tool_calls:
        refs += text_refs(call.arguments)
    return tuple(dict.fromkeys(refs))


def collect_refs(messages: Iterable[Message]) -> list[str]:
    """All refs in the messages, first appearance first, without repeats."""
    seen: dict[str, None] = {}
    for m in messages:
        for ref in message_refs(m):
            seen.setdefault(ref, None)
    return list(seen)


def other_refs(message: Message) -> list[str]:
    """Refs a message's text names besides its own output (a `recall` listing, a view footer
    pointing elsewhere): a placeholder replacing the text must still name them."""
    own = message.output_ref.id if message.output_ref else None
    return [r for r in message_refs(message) if r != own]


def clip_text(text: str, max_chars: int) -> str:
    """Head and tail of a long text with the cut marked (errors come last in logs)."""
    if len(text) <= max_chars:
        return text
    head = max_chars * 2 // 3
    tail = max_chars - head
    omitted = text.count("\n", head, len(text) - tail)
    return f"{text[:head]}\n[… {omitted} lines omitted …]\n{text[len(text) - tail :]}"
