"""The control-character filter every model or tool text passes before a terminal shows it."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from agent_tui.base.visible_text import visible


def test_escape_sequences_are_shown_not_acted_on():
    """wall: terminal output — ESC, CR, BEL of an erase-line and an OSC 52 become pictures."""
    text = "touch PWNED; \x1b[2K\x1b[1G ls -la \x1b]52;c;ZXZpbA==\x07 a\rb"
    shown = visible(text)
    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
    assert shown == "touch PWNED; ␛[2K␛[1G ls -la ␛]52;c;ZXZpbA==␇ a␍b"


def test_bidi_and_zero_width_are_shown():
    """wall: terminal output — a right-to-left override or a zero-width space cannot hide text."""
    assert visible("rm \u202eexe.txt\u200b") == "rm ⟨U+202E⟩exe.txt⟨U+200B⟩"
    assert visible("\x9b2J") == "⟨U+009B⟩2J"


def test_newlines_stay_unless_one_line():
    """wall: terminal output — newlines are lines, or `⏎` in a one-line field; CRLF is a newline."""
    assert visible("a\r\nb\tc") == "a\nb\tc"
    assert visible("ls -la\n\ntouch x\tz", one_line=True) == "ls -la⏎⏎touch x⇥z"


def test_plain_text_is_returned_as_is():
    """Typical text costs a scan and comes back as the same object."""
    text = "hello — wörld ✓ 👍\n\tindented"
    assert visible(text) is text


@pytest.mark.parametrize("category", ["Cc", "Cf", "Zl", "Zp"])
def test_every_control_and_format_character_is_covered(category):
    """wall: terminal output — the filter covers all of unicodedata's Cc, Cf, Zl and Zp."""
    missed = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == category
        and chr(code) not in "\n\t"
        and visible(chr(code)) == chr(code)
    ]
    assert missed == []


def test_typographic_punctuation_is_safe_but_its_neighbours_are_not():
    """wall: terminal output — — ✓ “” pass untouched; a zero-width joiner among them is shown."""
    text = "done — ✓ “quoted” © 東京 größe"
    assert visible(text) is text
    assert visible(text + "\u2060") == text + "⟨U+2060⟩"
    assert visible("tag\U000e0041") == "tag⟨U+E0041⟩"
