"""The bash tool's status line read back: a stored result keeps the line the model saw
(`[exit code 0 · 0.9 s]`), so a resumed tool line can say `exit 0 · 0.9 s` as the live one did
without storing the summary apart."""

from __future__ import annotations

import re

_EXIT = re.compile(r"^\[exit code (-?\d+) · ((?:under )?[0-9.]+ s)\]")
_TIMED_OUT = re.compile(r"^\[timed out after [^;\]]+; process group killed\]")
_CAPPED = re.compile(r"^\[output passed max_output_bytes \(\d+ bytes\) after ((?:under )?[0-9.]+ s);")


def summary_from_status(content: str) -> str | None:
    """The live line's `exit N · T` (or `timed out`, `output cap · killed · T`) from the status
    line at the end of a stored bash result; None when there is none (an error, an old row)."""
    last = content.rstrip().rsplit("\n", 1)[-1]
    if found := _EXIT.match(last):
        return f"exit {found[1]} · {found[2]}"
    if _TIMED_OUT.match(last):
        return "timed out"
    if found := _CAPPED.match(last):
        return f"output cap · killed · {found[1]}"
    return None
