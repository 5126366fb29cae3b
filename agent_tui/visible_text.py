"""Text from a model or a tool made safe to put on a terminal: every control character visible.

An approval that reads `ls -la` while the command is `touch PWNED; ESC[2K ESC[1G ls -la` is an
approval of the wrong thing, and an OSC 52 in a reply writes the user's clipboard. So nothing a
model or a tool produced reaches a terminal (the TUI's widgets, `run`'s stdout and stderr,
`sessions show`) without passing `visible`, which keeps the text and shows what would act:

- C0 controls and DEL as the Unicode control pictures (`␛` for ESC, `␍` for a lone CR, `␇` for
  BEL, `␡` for DEL); a CR right before LF is the line ending it is and stays a plain newline;
- C1 controls, bidi overrides and isolates, zero-width and other invisible format characters,
  line/paragraph separators and lone surrogates as `⟨U+202E⟩`;
- with `one_line=True` (a field or line that holds one line) newlines as `⏎` and tabs as `⇥`.

Pure Python, no imports from the UI, so the store's and the CLI's output paths use it too.
"""

from __future__ import annotations

import re

_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}

# Cc beyond C0 (C1), Cf (format: soft hyphen, bidi marks/overrides/isolates, zero-width, word
# joiners, BOM, interlinear annotations, tags), Zl/Zp and surrogates — what a terminal either acts
# on or draws as nothing. tests/test_visible_text.py checks this covers unicodedata's Cc and Cf.
_INVISIBLE = (
    "\u0080-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_UNSAFE = re.compile(f"\r\n|[\x00-\x08\x0b-\x1f\x7f{_INVISIBLE}]")
_UNSAFE_ONE_LINE = re.compile(f"\r\n|[\x00-\x1f\x7f{_INVISIBLE}]")


def _show(match: re.Match[str], one_line: bool) -> str:
    char = match.group()
    if char == "\r\n" or char == "\n":
        return "⏎" if one_line else "\n"
    if char == "\t":
        return "⇥"
    code = ord(char)
    picture = _PICTURES.get(code)
    return picture if picture is not None else f"⟨U+{code:04X}⟩"


_JSON_RAW = re.compile(f"[\x7f{_INVISIBLE}]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # JSON spells these as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_visible(line: str) -> str:
    """A line of JSON (`json.dumps(..., ensure_ascii=False)`, which escapes C0 already) with DEL,
    C1, bidi and the other invisible characters escaped too: the same value, nothing live."""
    return _JSON_RAW.sub(_json_escape, line)


def visible(text: str, *, one_line: bool = False) -> str:
    """`text` with every control and invisible format character shown (see the module's doc);
    the same object back when there is nothing to show, so the common case costs one scan."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(lambda m: _show(m, one_line), text)
