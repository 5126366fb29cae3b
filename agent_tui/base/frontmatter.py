"""Markdown files with a front matter block: `---`, `key: value` lines, `---`, then the body.

The one reader for every such file — custom commands, skills (folder `SKILL.md` and the user's
`skills/NAME.md`), sub-agent definitions — so Claude Code's files read the same wherever they
sit. It is a small subset of YAML on purpose: scalars, quoted strings, inline lists (`[a, b]`),
block lists (`- a` lines), indented continuation lines (folded into the value) and `|` / `>`
blocks — what such files hold — with no YAML dependency and no surprises (no anchors, no tags,
no types beyond str/int/bool/list).

`read` never fails: a line outside that subset is a problem with its line number, and the rest
is used (commands and skills load with a notice). `parse` is the strict form: the first problem
is a `FrontMatterError` naming the line (an agent definition is refused rather than guessed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_BLOCKS = {"|": "\n", "|-": "\n", ">": " ", ">-": " "}


class FrontMatterError(ValueError):
    """The block is malformed; the message names the line and what was expected."""


@dataclass(frozen=True)
class Document:
    meta: dict[str, Any]
    """The front matter's keys (lower-cased) and values."""
    body: str
    """Everything after the closing `---`, stripped."""
    problems: tuple[tuple[int, str], ...] = ()
    """(line number in the file, what is wrong), for the lines that could not be read."""
    raw: dict[str, str] = field(default_factory=dict)
    """Each key's value as written (a hint such as `[file] [mode]` is text, not a list)."""


def _scalar(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def _value(text: str) -> Any:
    text = text.strip()
    if text.startswith("[") and text.endswith("]") and "[" not in text[1:-1]:
        inner = text[1:-1].strip()
        return [_scalar(part) for part in inner.split(",") if part.strip()] if inner else []
    return _scalar(text)


def read(text: str) -> Document:
    """Split `text` into front matter and body; a file without front matter is all body."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return Document({}, text.lstrip("\ufeff").strip())
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        problem = (1, "the front matter opened with --- on line 1 is never closed by ---")
        return Document({}, "\n".join(lines).strip(), (problem,))
    meta: dict[str, Any] = {}
    raw: dict[str, str] = {}
    problems: list[tuple[int, str]] = []
    key: str | None = None
    joiner = " "  # how a continuation line joins its value: folded, or kept for `|`
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = line.strip()
        if item.startswith("- ") or item == "-":
            if key is None or not isinstance(meta.get(key), list):
                problems.append((number, "a `- item` line must follow a `key:` with no value"))
                continue
            meta[key].append(_scalar(item[1:]))
            continue
        if line[0].isspace() and key is not None and (isinstance(meta.get(key), str) or meta[key] == []):
            meta[key] = meta[key] or ""  # `key:` then indented text: the text is its value
            meta[key] = f"{meta[key]}{joiner}{item}" if meta[key] else item
            raw[key] = meta[key]
            continue
        match = _KEY.match(item) if not line[0].isspace() else None
        if match is None:
            problems.append((number, f"not a `key: value` line: {item[:40]!r}"))
            key = None
            continue
        key = match.group(1).lower()
        value = (match.group(2) or "").strip()
        raw[key] = value
        if value in _BLOCKS:
            meta[key], joiner = "", _BLOCKS[value]  # the indented lines below are its text
        else:
            meta[key], joiner = ([] if not value else _value(value)), " "
    return Document(meta, "\n".join(lines[end + 1 :]).strip(), tuple(problems), raw)


def parse(text: str) -> Document:
    """`read`, with the first problem raised as a `FrontMatterError` naming its line."""
    doc = read(text)
    if doc.problems:
        number, why = doc.problems[0]
        raise FrontMatterError(why if number == 1 and "never closed" in why else f"line {number}: {why}")
    return doc
