"""What shows under a tool line (`⎿`): a command's first lines, an edit's diff with line numbers.

A Claude Code user expects to see what `ls -la` printed without unfolding anything, and the lines
an approved edit changed. The line itself keeps its one-line status; this module turns the call's
display text (ToolCallFinished.display) into a few lines and a count of what is folded, as plain
values the widget styles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent_tui.tools.bash_status import summary_from_status

OUTPUT_LINES = 4
"""A command's lines shown under its call before the rest folds."""
DIFF_LINES = 10
"""An edit's diff lines shown before the rest folds (a diff is what the user approved: more)."""

Kind = Literal["out", "added", "removed", "context"]
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


@dataclass(frozen=True)
class PreviewLine:
    text: str
    kind: Kind = "out"


@dataclass(frozen=True)
class Preview:
    lines: tuple[PreviewLine, ...]
    folded: int
    """Lines not shown (Enter on the line unfolds them)."""


def is_diff(text: str) -> bool:
    head = text.lstrip("\n").split("\n", 2)
    return len(head) >= 2 and head[0].startswith("--- ") and head[1].startswith("+++ ")


def all_lines(display: str) -> list[PreviewLine]:
    """Every line of the display: a diff numbered by the new file's lines, output as it came."""
    if is_diff(display):
        return _diff_lines(display)
    lines = display.rstrip().split("\n")
    if lines and summary_from_status(lines[-1]) is not None:
        lines.pop()  # `[exit code 0 · 0.1 s]`: the line's status says it already
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return [PreviewLine(line) for line in lines]


def preview(display: str, whole_lines: int = 0) -> Preview | None:
    """The first lines of `display` and how many more there are; None when there is nothing.
    `whole_lines` is the stored output's line count when `display` may hold only its head and
    tail: the count folded is of the output, as the tool line's status counts it."""
    if not display.strip():
        return None
    lines = all_lines(display)
    if not lines:
        return None
    limit = DIFF_LINES if is_diff(display) else OUTPUT_LINES
    if len(lines) <= limit + 1:  # "… 1 more line" would take the line it hides
        return Preview(tuple(lines), 0)
    whole = len(lines) if is_diff(display) else max(len(lines), whole_lines)
    return Preview(tuple(lines[:limit]), whole - limit)


def _diff_lines(diff: str) -> list[PreviewLine]:
    shown: list[PreviewLine] = []
    old_no = new_no = 0
    ends = [int(h[0]) + int(h[1] or 1) for h in _HUNK.findall(diff)] + [
        int(h[2]) + int(h[3] or 1) for h in _HUNK.findall(diff)
    ]
    width = len(str(max(ends, default=1)))
    for line in diff.split("\n"):
        if found := _HUNK.match(line):
            old_no, new_no = int(found[1]), int(found[3])
            if shown:
                shown.append(PreviewLine("…", "context"))
            continue
        if line.startswith(("--- ", "+++ ")) or not line or line.startswith("\\"):
            continue
        sign, text = line[0], line[1:]
        if sign == "+":
            shown.append(PreviewLine(f"{new_no:>{width}} + {text}", "added"))
            new_no += 1
        elif sign == "-":
            shown.append(PreviewLine(f"{old_no:>{width}} - {text}", "removed"))
            old_no += 1
        else:
            shown.append(PreviewLine(f"{new_no:>{width}}   {text}", "context"))
            old_no += 1
            new_no += 1
    return shown
