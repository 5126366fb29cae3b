"""What a hook is: an event, a matcher over tool names, a command, a timeout, and where it came from.

Hooks from a `.claude/settings*.json` keep Claude Code's tool names (`Bash`, `Edit`, …): their
matcher is tried against the Claude Code names of our tools, and their stdin names the tool the
way Claude Code does, so a script testing `.tool_name == "Bash"` works unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_tui.base import tool_decl
from agent_tui.base.tool_decl import claude_names

EVENTS: tuple[str, ...] = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "Notification",
)
"""The events hooks may be attached to (Claude Code's names)."""

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
"""Events whose matcher is a regex over tool names; the others match everything."""

DEFAULT_TIMEOUT = 60.0

CLAUDE_PATH_ARGUMENT = "file_path"
"""What Claude Code's file tools call the path our tools declare as their path argument."""


def _claude_path_argument(tool: str) -> str | None:
    """Our argument a `.claude/` hook sees as `file_path`: the first declared path argument of a
    tool Claude Code has a name for; None for the others (their input passes as it is)."""
    declared = tool_decl.declared(tool)
    if declared is None or not declared.claude_names or not declared.path_args:
        return None
    return declared.path_args[0]


@dataclass(frozen=True)
class HookSpec:
    """One configured hook."""

    event: str
    command: str
    """Run with `bash -c` in the project folder."""
    matcher: str = ""
    """A regex over tool names (anchored at both ends); '' or `*` matches every tool."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds before the hook's whole process group is killed (and the run reported)."""
    source: str = ""
    """The file it came from, for /hooks and `config show`."""
    claude: bool = False
    """From a `.claude/` settings file: tool names and inputs are given the Claude Code way."""

    def matches(self, tool: str | None) -> bool:
        if self.event not in TOOL_EVENTS or self.matcher in ("", "*") or tool is None:
            return True
        # Our own config may name an MCP tool either way: `server__tool` or `mcp__server__tool`.
        names = claude_names(tool) if self.claude else (tool, *(f"mcp__{tool}",) * ("__" in tool))
        try:
            pattern = re.compile(self.matcher)
        except re.error:
            return False
        return any(pattern.fullmatch(name) for name in names)

    def tool_name(self, tool: str) -> str:
        """The name this hook's stdin gives the tool."""
        return claude_names(tool)[0] if self.claude else tool

    def tool_input(self, tool: str, args: dict[str, Any], workspace: str) -> dict[str, Any]:
        """The arguments as this hook expects them: Claude Code's file tools take an absolute
        `file_path` where ours take `path` (relative to the workspace)."""
        ours = _claude_path_argument(tool) if self.claude else None
        if ours is None or ours not in args:
            return dict(args)
        out = dict(args)
        path = str(out.pop(ours))
        out[CLAUDE_PATH_ARGUMENT] = path if path.startswith("/") else f"{workspace.rstrip('/')}/{path}"
        return out

    def our_input(self, tool: str, updated: dict[str, Any]) -> dict[str, Any]:
        """An `updatedInput` back in our tool's argument names."""
        ours = _claude_path_argument(tool) if self.claude else None
        if ours is None or CLAUDE_PATH_ARGUMENT not in updated:
            return dict(updated)
        out = dict(updated)
        out[ours] = out.pop(CLAUDE_PATH_ARGUMENT)
        return out

    @property
    def one_line(self) -> str:
        """The whole command on one line: what a trust question must show."""
        return " ".join(self.command.split())

    @property
    def label(self) -> str:
        """The command as a chat line shows it: short, on one line."""
        text = " ".join(self.command.split())
        return text if len(text) <= 48 else text[:47] + "…"
