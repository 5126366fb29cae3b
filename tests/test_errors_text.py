"""`one_line`: the single folding of error text into one short line for notices and messages."""

from __future__ import annotations

from agent_tui.base.errors_text import one_line


def test_folds_newlines_and_runs_of_spaces():
    """A multi-line message with indents and tabs becomes one line with single spaces."""
    exc = RuntimeError("server said:\n    502 Bad Gateway\r\n\tretry   later  ")
    assert one_line(exc, 200) == "server said: 502 Bad Gateway retry later"


def test_cuts_at_the_limit_after_folding():
    """The limit counts characters of the folded text, so folded whitespace does not use it up."""
    exc = ValueError("a\n\n\n\nb" + "c" * 500)
    text = one_line(exc, 10)
    assert text == "a bccccccc" and len(text) == 10


def test_empty_message_stays_empty():
    """An exception with no message gives "", so the caller's fallback (its class name) applies."""
    assert one_line(KeyError(), 160) == ""
    assert (one_line(TimeoutError(), 160) or type(TimeoutError()).__name__) == "TimeoutError"


def test_any_value_is_shown_by_its_text():
    """Non-exceptions (a reason string, None) fold by their `str`."""
    assert one_line("  not   sent\n", 300) == "not sent"
    assert one_line(None, 300) == "None"
