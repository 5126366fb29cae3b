"""One-line descriptions of tool calls and their results, derived from what is in the history.

Pruning condenses an old result to `Ran: pytest -q → exit 1 [ref=r_…]`, and the retain block and
truncation note label refs the same way. A tool that declares its kind (tool_decl.py: every
built-in) is sorted by that declaration; other tools (MCP's `server__tool`, a transcript another
agent wrote) by the words such tools are commonly called. The line is built from the call's
arguments plus what the result text says (line count, exit code, an error's first line).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agent_tui.base import tool_decl
from agent_tui.base.messages import Message, ToolCall

from .shape import TRIMMED_PREFIX, other_refs, weak_cache

# What other agents' and MCP servers' tools are commonly called, by kind. Our own tools declare
# their kind; these words are for the tools that do not.
READ_TOOLS = frozenset({"read_file", "view", "view_file", "cat", "open_file", "read", "read_text"})
EDIT_TOOLS = frozenset(
    {
        "edit_file",
        "write_file",
        "create_file",
        "str_replace",
        "str_replace_editor",
        "apply_patch",
        "replace_in_file",
        "multi_edit",
        "multiedit",
        "patch",
        "insert",
        "write",
        "edit",
    }
)
RUN_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "run",
        "run_command",
        "exec",
        "execute",
        "terminal",
        "python",
        "sh",
    }
)
SEARCH_TOOLS = frozenset(
    {
        "grep",
        "glob",
        "search",
        "find",
        "list_dir",
        "ls",
        "find_files",
        "rg",
        "ripgrep",
        "search_files",
        "list_files",
        "tree",
    }
)
_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "target")
_COMMAND_KEYS = ("command", "cmd", "script", "code")
_PATTERN_KEYS = ("pattern", "query", "regex", "glob", "name")
_RANGE_KEYS = frozenset(
    {
        "offset",
        "limit",
        "start",
        "end",
        "start_line",
        "end_line",
        "line",
        "lines",
        "view_range",
    }
)
_EXIT = re.compile(r"(?i)\bexit(?:ed)?(?:\s+with)?(?:\s+code|\s+status|_code)?\s*[:=]?\s*(-?\d+)\b")


_DECLARED_KINDS: dict[str, str] = {"read": "read", "edit": "edit", "execute": "run", "search": "search"}
"""A declared tool kind (ACP's words) as compaction's: what its condensed line says it did."""


def tool_kind(name: str) -> str:
    """read / edit / run / search / other: what the tool declares, else guessed from its name
    (MCP prefix ignored)."""
    declared = tool_decl.declared(name)
    if declared is not None:
        return _DECLARED_KINDS.get(declared.kind, "other")
    base = name.rsplit("__", 1)[-1].lower()
    for kind, names in (
        ("read", READ_TOOLS),
        ("edit", EDIT_TOOLS),
        ("run", RUN_TOOLS),
        ("search", SEARCH_TOOLS),
    ):
        if base in names:
            return kind
    return "other"


def _args(call: ToolCall) -> dict[str, Any]:
    try:
        return call.parsed_arguments()
    except ValueError:
        return {}


def _one_line(value: Any, limit: int) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class CallInfo:
    """What a call did, as far as its name and arguments tell."""

    kind: str
    """read / edit / run / search / other."""
    path: str | None
    """The file it read or changed, normalised (`./a.py` → `a.py`)."""
    label: str
    """`Ran: pytest -q`, `Viewed src/app.py`, `Edited src/app.py`, `Called x(…)`."""
    ranged: tuple[tuple[str, str], ...] = ()
    """Range arguments of a read (offset, limit…): a read of other lines supersedes nothing."""


@weak_cache
def describe_call(call: ToolCall) -> CallInfo:
    """Cached: a call is immutable and every compaction of a session meets the same ones."""
    args = _args(call)
    kind = tool_kind(call.name)
    declared = tool_decl.declared(call.name)
    keys = (*declared.path_args, *_PATH_KEYS) if declared is not None else _PATH_KEYS
    path = next((str(args[k]) for k in keys if isinstance(args.get(k), str)), None)
    if path is not None:
        path = path.strip()
        while path.startswith("./"):
            path = path[2:]
    ranged = tuple(sorted((k, json.dumps(v)) for k, v in args.items() if k in _RANGE_KEYS))
    if kind == "run":
        command = next((args[k] for k in _COMMAND_KEYS if args.get(k)), None)
        label = f"Ran: {_one_line(command if command is not None else call.arguments, 80)}"
    elif kind == "read" and path:
        extent = " " + ", ".join(f"{k}={v}" for k, v in ranged) if ranged else ""
        label = f"Viewed {path}{extent}"
    elif kind == "edit" and path:
        label = f"Edited {path}"
    elif kind == "search":
        what = next((args[k] for k in _PATTERN_KEYS if args.get(k)), None)
        where = f" in {path}" if path else ""
        label = f"Searched: {call.name} {_one_line(what or call.arguments, 60)}{where}"
    else:
        label = f"Called {call.name}({_one_line(call.arguments, 60)})"
    return CallInfo(kind=kind, path=path, label=label, ranged=ranged)


def is_error_result(message: Message) -> bool:
    """A tool result that reports the tool failed (`ToolOutput.error` writes `Error: …`)."""
    text = (message.content or "").lstrip()
    return text.startswith(("Error:", "error:", "ERROR:", "Error "))


def exit_code(text: str) -> str | None:
    """The exit status a run's output reports, looking at its end first (where shells put it)."""
    for part in (text[-400:], text[:300]):
        match = _EXIT.search(part)
        if match:
            return match.group(1)
    return None


def line_count(message: Message) -> int:
    if message.output_ref is not None:
        return message.output_ref.line_count
    text = message.content or ""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def ref_suffix(message: Message) -> str:
    """` [ref=r_1]` (plus any other refs the text named), or a note that nothing is stored."""
    parts = [f"ref={message.output_ref.id}"] if message.output_ref else []
    parts += [f"ref={r}" for r in other_refs(message)]
    if parts:
        return " [" + ", ".join(parts) + "]"
    return " [not stored]"


def condensed_line(call: ToolCall | None, result: Message, prefix: str = "") -> str:
    """The one line a condensed result becomes, e.g. `Ran: pytest -q → exit 1 [ref=r_1]`."""
    text = result.content or ""
    already_trimmed = text.startswith(TRIMMED_PREFIX)
    label = describe_call(call).label if call else f"Called {result.name or 'a tool'}"
    if is_error_result(result):
        outcome = "error: " + _one_line(text.lstrip().split("\n", 1)[0], 100)
    elif already_trimmed:
        outcome = ""
    else:
        code = exit_code(text) if call and tool_kind(call.name) == "run" else None
        lines = line_count(result)
        outcome = f"exit {code}" if code is not None else f"{lines} line{'s' * (lines != 1)}"
        if call and tool_kind(call.name) == "read" and code is None:
            label, outcome = f"{label} ({outcome})", ""
    line = prefix + label + (f" → {outcome}" if outcome else "") + ref_suffix(result)
    if result.output_ref is None and not already_trimmed and text.strip():
        # Nothing holds this output elsewhere: keep its beginning rather than lose it all.
        line += " began: " + _one_line(text, 160)
    return line
