"""The `---` header of a command or skill file: `key: value` lines, the small YAML subset these
files use (plain or quoted scalars, `[a, b]` lists, `- item` lists under a key).

A line it cannot read is reported with its line number and skipped; the body is still used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Parsed:
    meta: dict[str, Any]
    body: str
    problems: list[tuple[int, str]] = field(default_factory=list)
    """(line number in the file, what is wrong)."""


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _value(text: str) -> Any:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [_scalar(part) for part in text[1:-1].split(",") if part.strip()]
    return _scalar(text)


def parse(text: str) -> Parsed:
    """Split `text` into its front matter and body."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return Parsed({}, text.strip())
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return Parsed({}, text.strip(), [(1, "front matter opened with --- but never closed")])
    meta: dict[str, Any] = {}
    problems: list[tuple[int, str]] = []
    key: str | None = None
    for number, line in enumerate(lines[1:end], 2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        stripped = line.strip()
        if stripped.startswith("- ") and key is not None:
            current = meta.get(key)
            meta[key] = [*(current if isinstance(current, list) else []), _scalar(stripped[2:])]
            continue
        name, colon, rest = line.partition(":")
        if not colon or not name.strip() or name != name.lstrip() or " " in name.strip():
            problems.append((number, f"not a `key: value` line: {stripped[:40]!r}"))
            key = None
            continue
        key = name.strip().lower()
        meta[key] = _value(rest) if rest.strip() else []
    return Parsed(meta, "\n".join(lines[end + 1 :]).strip(), problems)
