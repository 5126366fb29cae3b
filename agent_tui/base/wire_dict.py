"""A wire message the request caches share by identity, so nobody may change it.

The prompt assembler keeps one wire dict per history message and hands the same objects to every
request; the OpenAI encoder then reuses a message's JSON when the next request holds the very
same object. That reuse is only sound when a dict cannot change after it was sent, so the
assembler's dicts refuse every in-place change: code that wants a variant (a cache mark, a
thinking block, the per-turn note) takes a copy, as it always should have. Copies — `dict(m)`,
`{**m}`, `copy.copy`, `copy.deepcopy`, pickling — are plain, changeable dicts.

Read-only at the top level: the nested lists are fresh per message and no stage touches them
(tests/test_wire_incremental.py compares every request a real session sends with a fresh build).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from agent_tui.base.same_prefix import same_prefix


class WireDict(dict[str, Any]):
    """A read-only dict: reading, comparing and serialising work as for any dict."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a sent wire message is read-only: change a copy (dict(message))")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (dict, (dict(self),))

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        import copy

        return copy.deepcopy(dict(self), memo)


def as_sent(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a request cache keeps of messages it sent: a WireDict itself (it cannot change), any
    other dict as a shallow copy (so it is never the same object again, and never reused stale)."""
    return [m if type(m) is WireDict else dict(m) for m in messages]


def same_as_sent(messages: list[dict[str, Any]], sent: list[dict[str, Any]]) -> int:
    """How many leading `messages` are those kept by `as_sent` last time: the first (the system
    message, a new dict every request) compared by value, the rest by identity, at C speed."""
    if not messages or not sent or messages[0] != sent[0]:
        return 0
    return 1 + same_prefix(messages[1:], sent[1:])
