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

# Cc beyond C0 (C1), Cf (format: soft hyphen, bidi marks/overrides/isolates, zero-width, word
# joiners, BOM, interlinear annotations, tags), Zl/Zp and surrogates — what a terminal either acts
# on or draws as nothing. tests/test_visible_text.py checks this covers unicodedata's Cc and Cf.
_INVISIBLE = (
    "\u0080-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f{_INVISIBLE}]")
_UNSAFE_ONE_LINE = re.compile(f"[\x00-\x1f\x7f{_INVISIBLE}]")


def _table() -> dict[str, str]:
    """Every character `visible` replaces, with what it shows instead."""
    table = {chr(code): chr(0x2400 + code) for code in range(0x20)} | {"\x7f": "\u2421"}
    for match in re.finditer(r"(.)(?:-(.))?", _INVISIBLE, re.DOTALL):
        first, last = ord(match.group(1)), ord(match.group(2) or match.group(1))
        table.update({chr(code): f"⟨U+{code:04X}⟩" for code in range(first, last + 1)})
    return table


_SHOW = _table()
_ONE_LINE = {"\n": "⏎", "\t": "⇥"}
_ASCII_SAFE = bytes(set(range(0x20, 0x7F)) | {0x09, 0x0A})
_ASCII_SAFE_ONE_LINE = bytes(range(0x20, 0x7F))
# In UTF-8 every unsafe non-ASCII character starts with one of these lead bytes: text whose
# encoding has none of them (accents, CJK, Cyrillic…) needs no regex scan.
_LEADS = {0xC2, 0xD8, 0xDB, 0xDC, 0xE0, 0xE1, 0xE2, 0xED, 0xEF, 0xF0, 0xF3}
_UTF8_SAFE = bytes(set(range(0x100)) - _LEADS - (set(range(0x20)) - {0x09, 0x0A}) - {0x7F})
_UTF8_SAFE_ONE_LINE = bytes(set(range(0x100)) - _LEADS - set(range(0x20)) - {0x7F})


def _sequences() -> dict[int, list[bytes]]:
    """Per lead byte, the UTF-8 of the unsafe characters starting with it — for the leads with
    few of them: E2 is also typographic punctuation (— ✓ “”), found by a few memmem scans
    instead of a regex over the whole text."""
    by_lead: dict[int, list[bytes]] = {}
    for char in _SHOW:
        encoded = char.encode("utf-8", "surrogatepass")
        if len(encoded) > 1:
            by_lead.setdefault(encoded[0], []).append(encoded)
    return {lead: seqs for lead, seqs in by_lead.items() if len(seqs) <= 64}


_BY_LEAD = _sequences()


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
    the same object back when there is nothing to show.

    Speed matters (every tool output passes here): ASCII text is checked in C (bytes.translate
    deleting the safe bytes leaves the unsafe ones), other text the same way on its UTF-8 and,
    when a lead byte of an unsafe character shows up, with one regex scan; then each
    distinct character found is replaced with one C-speed str.replace, so a megabyte of coloured
    output costs a few replaces, not a Python call per escape."""
    if text.isascii():
        residue = text.encode("ascii").translate(None, _ASCII_SAFE_ONE_LINE if one_line else _ASCII_SAFE)
        if not residue:
            return text
        found = set(residue.decode("ascii"))
    else:
        encoded = text.encode("utf-8", "surrogatepass")
        residue = encoded.translate(None, _UTF8_SAFE_ONE_LINE if one_line else _UTF8_SAFE)
        if not residue:
            return text
        leads = set(residue)
        if leads <= _BY_LEAD.keys() and not any(seq in encoded for lead in leads for seq in _BY_LEAD[lead]):
            return text
        found = set((_UNSAFE_ONE_LINE if one_line else _UNSAFE).findall(text))
        if not found:
            return text
    if "\r" in found and "\r\n" in text:  # a line ending, not a carriage return that overwrites
        text = text.replace("\r\n", "⏎" if one_line else "\n")
    for char in sorted(found):
        text = text.replace(char, _ONE_LINE.get(char) or _SHOW[char])
    return text
