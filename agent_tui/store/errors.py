"""The store's exceptions, each phrased as one line a user (or the model) can act on.

Read-side errors (unknown ref, bad URI, lines out of range, bad regex) are returned to the model
as tool results, so their text says what to do next, not only what went wrong.
"""

from __future__ import annotations


class StoreError(Exception):
    """Any problem the store reports; `str(exc)` is the one line to show."""


class CorruptDatabase(StoreError):
    """The file at the database path is not a readable agent-tui SQLite database."""


class NewerSchema(StoreError):
    """The database was written by a newer agent-tui than this one."""


class SessionNotFound(StoreError):
    """No session has the given id."""


class RefNotFound(StoreError):
    """No stored tool output answers to the given ref (or not in the session asked about)."""


class BadRef(StoreError):
    """Text that is neither a short ref id nor a well-formed `ctx://` URI."""


class LineRangeError(StoreError):
    """Lines asked for lie outside the stored output."""


class BadPattern(StoreError):
    """A grep pattern that is not a valid regular expression."""
