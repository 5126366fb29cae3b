"""The status line under the meter: a command of the user's that prints one line about the
session, as Claude Code's `statusLine` setting does.

The command comes from `[status_line] command` in agent-tui's config, else Claude Code's
`statusLine` (`{"type": "command", "command": …}`) in `.claude/settings.local.json`,
`.claude/settings.json` (a project's: trusted folders only, like hooks) or the user's own
`~/.claude/settings.json`. It gets JSON about the session on stdin (Claude Code's fields plus
`context`), runs like a hook (its own process group, the project folder, killed at its time
limit) and the first line of its stdout is shown, its control characters made visible. No layer
of the UI is imported: the widget calls `render`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.base.visible_text import visible
from agent_tui.hooks.process import hook_env, run_hook_process
from agent_tui.policy import project_layout
from agent_tui.policy.claude_permissions import user_settings_file
from agent_tui.runtime import paths

MAX_WIDTH = 400


@dataclass(frozen=True)
class StatusCommand:
    command: str
    source: str
    """Where it was configured (`[status_line] command`, `.claude/settings.json`…)."""


def _claude_status(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    found = data.get("statusLine") if isinstance(data, dict) else None
    if isinstance(found, dict) and found.get("type", "command") == "command":
        command = found.get("command")
        return command if isinstance(command, str) and command.strip() else None
    return None


def find_command(configured: str | None, workspace: Path, *, trusted: bool) -> StatusCommand | None:
    """The status command for this workspace, or None when nobody configured one."""

    if configured and configured.strip():
        return StatusCommand(configured, "[status_line] command")
    shared, local = project_layout.CLAUDE_SETTINGS
    places = [workspace / local, workspace / shared] if trusted else []
    for path in [*places, user_settings_file()]:
        if (command := _claude_status(path)) is not None:
            return StatusCommand(command, paths.shown(path))
    return None


def payload(
    *,
    session_id: str,
    model: str,
    workspace: Path,
    cost: float | None,
    used: int | None,
    window: int | None,
    version: str,
) -> dict[str, Any]:
    """What the command reads on stdin: Claude Code's fields (model, workspace, cost), plus the
    context window's use. An unknown cost is null, never 0."""
    percent = round(100 * used / window, 1) if used is not None and window else None
    return {
        "hook_event_name": "Status",
        "session_id": session_id,
        "cwd": str(workspace),
        "model": {"id": model, "display_name": model.split("/")[-1]},
        "workspace": {"current_dir": str(workspace), "project_dir": str(workspace)},
        "version": version,
        "cost": {"total_cost_usd": cost},
        "context": {"used_tokens": used, "window_tokens": window, "used_percent": percent},
    }


async def render(command: str, data: dict[str, Any], *, cwd: Path, timeout: float) -> str:
    """The first line the command printed, made safe to show; a short note when it failed or
    ran past `timeout` (its process group is killed then)."""

    env = hook_env(cwd, str(data.get("session_id", "")), "Status")
    result = await run_hook_process(command, data, cwd=cwd, env=env, timeout=timeout)
    if result.timed_out:
        return f"status line: command stopped after {timeout:g} s ([status_line] timeout)"
    if result.error:
        return f"status line: {result.error}"
    lines = result.stdout.splitlines()
    first = visible(lines[0], one_line=True) if lines else ""
    return first[:MAX_WIDTH]
