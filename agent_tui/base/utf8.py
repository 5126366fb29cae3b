"""Text that is valid UTF-8 at every boundary: the store, the wire and `--json` output.

Python strings can hold lone surrogates: `os.listdir` turns an undecodable file name byte into
U+DC80–U+DCFF (surrogateescape), and a JSON `\\ud800` escape from a model decodes to one. SQLite,
the provider's JSON encoder and a terminal reading `--json` all reject them, so one odd file name
used to make a session unpersistable and unsendable. Here they become escapes a reader can see
(`bad\\xffname.txt`), which also keeps the original byte recoverable by eye.
"""

from __future__ import annotations

from typing import Any


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced: escaped bytes become `\\xNN`, any other
    surrogate `\\udNNN`. The same object when there is nothing to replace (the common case)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    out: list[str] = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def clean_value(value: Any) -> Any:
    """`clean_text` through the strings of a JSON-like value (dicts, lists, tuples)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_value(v) for v in value]
    return value
