"""One line of text for an error (or any value) shown in a notice, a status line or a log record.

Exception messages carry newlines, tracebacks from servers and runs of spaces; a notice or a
`--json` field must stay on one line and short. Every place that shows an error's text folds it
here, so they all fold the same way.
"""

from __future__ import annotations


def one_line(value: object, limit: int) -> str:
    """`str(value)` with every run of whitespace (newlines included) folded to one space, cut at
    `limit` characters; empty when the value says nothing (callers choose their fallback, often
    the exception's class name)."""
    return " ".join(str(value).split())[:limit]
