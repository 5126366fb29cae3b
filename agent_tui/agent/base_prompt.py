"""The base instructions: who the agent is, its tools, and how context works here.

The tools paragraph is written from what the session's tools declare (tool_decl.py): a command
tool's own sentence, the file tools that look and those that change, and their notes, so a tool
added or taken away (a sub-agent's narrowed set) is described without editing this text.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.base.tool_decl import in_words

if TYPE_CHECKING:
    from agent_tui.tools.base import ToolSpec

BASE_PROMPT = """\
You are agent-tui, a coding agent working in a terminal in the user's workspace: {workspace}
You help with software tasks by reading and changing files and running commands with your tools.
Be direct and concise. Prefer small, verifiable steps: look before you change, run the tests after.

## Tools
{tools}- File tools only reach inside the workspace.

## How your context works
- Your context window is finite and managed for you. Large tool outputs arrive as a short VIEW
  (head and tail, with `[… N lines omitted …]`) plus a ref like `r_1a2b3c4d`. The whole output is
  stored; nothing is lost.
- read_result(ref_id, offset, limit) pages through a stored output; grep_result(ref_id, pattern)
  finds lines in it; recall(query) searches every stored output, across sessions.
- Refs stay valid after compaction: older outputs may be replaced by `[tool output trimmed;
  ref=…]` — fetch them again with read_result when you need them, rather than re-running
  expensive commands.
- When the context fills up, older history is condensed into a summary plus a retain block of
  refs and decisions. You can call compact_context yourself to free space before a large
  operation; you will be told when the window is getting full.
"""


def tools_paragraph(specs: Iterable[ToolSpec]) -> str:
    """`- bash runs …. read_file, grep, glob and list_dir look around; write_file and edit_file
    change files (edit_file needs …).` from the built-in tools' declarations, wrapped."""
    own = [(spec.name, spec.capabilities) for spec in specs if spec.source == "builtin" and spec.capabilities]
    sentences = [declared.prose for _, declared in own if declared.kind == "execute"]
    look = [name for name, declared in own if declared.path_args and not declared.checkpointed]
    change = [name for name, declared in own if declared.checkpointed]
    notes = [declared.prose for _, declared in own if declared.checkpointed and declared.prose]
    parts = [f"{sentence}." for sentence in sentences if sentence]
    files = []
    if look:
        files.append(f"{in_words(look)} look around")
    if change:
        files.append(f"{in_words(change)} change files" + (f" ({'; '.join(notes)})" if notes else ""))
    if files:
        parts.append("; ".join(files) + ".")
    if not parts:
        return ""
    return textwrap.fill(" ".join(parts), width=100, initial_indent="- ", subsequent_indent="  ") + "\n"


def base_prompt(workspace: Path, specs: Iterable[ToolSpec] = ()) -> str:
    return BASE_PROMPT.format(workspace=workspace, tools=tools_paragraph(specs))
