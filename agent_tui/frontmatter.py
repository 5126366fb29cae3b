"""Markdown files with a front matter block: `---`, `key: value` lines, `---`, then the body.

Agent definitions (and Claude Code's `.claude/agents/*.md`, which they must read as they are) use
this shape. It is a small subset of YAML on purpose: scalars, quoted strings, inline lists
(`[a, b]`), block lists (`- a` lines) and comma-separated words — what such files hold — with no
YAML dependency and no surprises (no anchors, no tags, no types beyond str/int/bool/list). A file
outside that subset is a `FrontMatterError` naming the line, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


class FrontMatterError(ValueError):
    """The block is malformed; the message names the line and what was expected."""


@dataclass(frozen=True)
class Document:
    meta: dict[str, Any]
    """The front matter's keys (lower-cased) and values."""
    body: str
    """Everything after the closing `---`, stripped."""


def _scalar(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def _value(text: str, line_no: int) -> Any:
    text = text.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise FrontMatterError(
                f"line {line_no}: a list that opens with [ must close with ] on the same line"
            )
        inner = text[1:-1].strip()
        return [_scalar(part) for part in inner.split(",") if part.strip()] if inner else []
    return _scalar(text)


def parse(text: str) -> Document:
    """Split `text` into front matter and body. A file without front matter is all body."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return Document({}, text.strip())
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise FrontMatterError("the front matter opened with --- on line 1 is never closed by ---") from None
    meta: dict[str, Any] = {}
    key: str | None = None
    for number, raw in enumerate(lines[1:end], start=2):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        item = raw.strip()
        if item.startswith("- ") or item == "-":
            if key is None or not isinstance(meta.get(key), list):
                raise FrontMatterError(f"line {number}: a `- item` line must follow a `key:` with no value")
            meta[key].append(_scalar(item[1:]))
            continue
        if raw[0].isspace() and key is not None and isinstance(meta.get(key), str):
            meta[key] = f"{meta[key]} {item}".strip()  # a folded continuation line
            continue
        match = _KEY.match(item)
        if match is None:
            raise FrontMatterError(f"line {number}: expected `key: value`, got {item[:40]!r}")
        key = match.group(1).lower()
        value = match.group(2)
        if value.strip() in ("|", ">", "|-", ">-"):
            meta[key] = ""  # a block scalar: the indented lines below are its text
        else:
            meta[key] = [] if not value.strip() else _value(value, number)
    return Document(meta, "\n".join(lines[end + 1 :]).strip())
