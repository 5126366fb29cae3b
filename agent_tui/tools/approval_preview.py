"""What an approval shows about a call: its one-line description, the preview (the command, the
diff a write or edit would apply), where a command would run, and the sandbox's own refusal of a
file write."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.base import tool_decl
from agent_tui.tools.files import preview_edit, preview_write
from agent_tui.tools.workspace import PathError, resolve_path

if TYPE_CHECKING:
    from agent_tui.tools.sandbox import Sandbox

log = logging.getLogger(__name__)


def describe_call(tool: str, args: dict[str, Any]) -> str:
    """The call in one line for messages: the command of a command tool, the path of a file tool."""
    if tool_decl.preview_of(tool) == "command":
        return str(args.get("command", ""))
    if (path := tool_decl.path_of(tool, args)) is not None:
        return str(path)
    return json.dumps(args, ensure_ascii=False)[:200]


def build_preview(tool: str, args: dict[str, Any], workspace: Path) -> str:
    """What the approver shows, as the tool declares: the command, the diff a write or edit would
    apply, else the arguments."""
    preview = tool_decl.preview_of(tool)
    if preview == "command":
        return str(args.get("command", ""))
    if preview in ("write", "edit"):
        try:
            return (preview_write if preview == "write" else preview_edit)(args, workspace)
        except Exception as exc:
            log.exception("preview for %s failed", tool)
            return f"(no preview: {exc})"
    return json.dumps(args, ensure_ascii=False, indent=2)


def where(sandbox: Sandbox | None) -> str | None:
    """Where a bash command would run, for the approval dialog."""
    if sandbox is None or sandbox.topbar() is None:
        return None  # no sandbox, or the user turned it off: nothing new to say
    if sandbox.active:
        return f"runs sandboxed ({sandbox.label()})"
    return "runs NOT sandboxed (sandbox " + sandbox.label() + ")"


def sandbox_refusal(sandbox: Sandbox, tool: str, args: dict[str, Any], workspace: Path) -> str | None:
    """File tools follow the sandbox's write rules: nothing in read-only mode, never a protected path."""
    if not tool_decl.checkpointed(tool):
        return None

    raw = tool_decl.path_of(tool, args)
    try:
        target = resolve_path(workspace, raw)
    except PathError:
        return None  # the tool itself explains a bad path
    refusal = sandbox.write_refusal(target)
    return f"Refused by the sandbox: {tool} {raw}: {refusal}." if refusal else None
