"""Highlighting for the blob viewer, one window of lines at a time.

A file read by `read_file` (its path is known) gets Pygments by the file name; anything else —
command output, logs — gets a few log patterns (errors, warnings, passes, numbers, paths) in the
theme's colours, words the eye looks for and that stay readable without colour.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text

from agent_tui.base.visible_text import visible

if TYPE_CHECKING:
    from textual.widget import Widget

LOG_PATTERNS = (
    (
        "viewer--error",
        re.compile(
            r"\b(?:ERROR|Error|error|FAILED|FAIL|Fail|failed|Traceback|"
            r"Exception|fatal|panic|exit [1-9]\d*)\b"
        ),
    ),
    (
        "viewer--warning",
        re.compile(
            r"\b(?:WARNING|Warning|warning|WARN|deprecated|"
            r"DeprecationWarning|skipped|SKIPPED)\b"
        ),
    ),
    ("viewer--ok", re.compile(r"\b(?:PASSED|passed|OK|ok|success|succeeded|done)\b")),
    ("viewer--number", re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:ms|s|%)?(?![\w.])")),
)


def lexer_for(hint: str | None) -> str | None:
    """The Pygments lexer alias for a file name, or None when there is none (or no hint)."""
    if not hint:
        return None
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    name = hint.split()[0] if hint.split() else hint
    try:
        lexer = get_lexer_for_filename(name)
    except ClassNotFound:
        return None
    return lexer.aliases[0] if lexer.aliases else None


class Highlighter:
    """Turns a window of lines into styled Text, by file syntax or by log patterns."""

    def __init__(self, hint: str | None = None) -> None:
        self.hint = hint
        self.lexer = lexer_for(hint)

    def highlight(self, lines: list[str], widget: Widget) -> list[Text]:
        # A stored output is a tool's bytes: its escapes are shown, never sent to the terminal.
        lines = [visible(line, one_line=True) for line in lines]
        if self.lexer is not None:
            return self._syntax(lines, widget)
        styles = [(widget.get_component_rich_style(name), pattern) for name, pattern in LOG_PATTERNS]
        texts = []
        for line in lines:
            text = Text(line, no_wrap=True)
            for style, pattern in styles:
                text.highlight_regex(pattern, style)
            texts.append(text)
        return texts

    def _syntax(self, lines: list[str], widget: Widget) -> list[Text]:
        from rich.syntax import Syntax

        code = "\n".join(lines)
        theme = "monokai" if widget.app.current_theme.dark else "friendly"
        syntax = Syntax(code, self.lexer or "text", theme=theme, background_color="default")
        highlighted = syntax.highlight(code).split("\n", allow_blank=True)
        # A window starts mid-file: the lexer may read a line differently than in context,
        # which only changes colours, never the text or the line count.
        texts = list(highlighted[: len(lines)])
        while len(texts) < len(lines):
            texts.append(Text(lines[len(texts)]))
        for text in texts:
            text.no_wrap = True
            text.style = ""  # the theme's background would hide the current-line marking
        return texts
