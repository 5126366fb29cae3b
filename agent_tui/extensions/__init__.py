"""Custom slash commands and skills from Markdown files: the user's, the project's
(`.agent-tui/`) and a Claude Code project's (`.claude/`), read the way Claude Code reads them."""

from __future__ import annotations
