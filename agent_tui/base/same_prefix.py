"""How long two sequences stay the same from the start, found at C speed.

Every per-step cache over a growing history (the wire view, the request's wire dicts, the
serialised request body) asks the same question of a 3 000-message history on the UI loop before
it reuses anything: how much of what it built last time still stands. A Python-level loop over
the history costs about as much as redoing the work, so the scan is `map` and `itertools`
end to end, which the interpreter runs without executing a bytecode per element.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any


def same_prefix(
    new: Sequence[Any], old: Sequence[Any], differ: Callable[[Any, Any], Any] = operator.is_not
) -> int:
    """How many leading items of `new` and `old` `differ` finds not to differ (by default: how
    many are the very same objects); at most the shorter one's length."""
    first = next(itertools.compress(itertools.count(), map(differ, new, old)), None)
    return min(len(new), len(old)) if first is None else int(first)
