"""The model's handles on its background commands: `bash_output` and `kill_shell`.

Both act on the session's registry (tools/background.py); starting one is `bash` with
`background: true`, so it goes through the same approval and sandbox as any command.
"""

from __future__ import annotations

from typing import Any

from agent_tui.base.tool_decl import Capabilities
from agent_tui.tools.base import Shells, ToolContext, ToolOutput, ToolSpec

MAX_WAIT = 60.0

_ID = {"type": "string", "description": "sh_1, …"}


def _shells(ctx: ToolContext) -> Shells | None:
    return ctx.services.shells


class BashOutputTool:
    spec = ToolSpec(
        name="bash_output",
        brief="New output of a background command (by shell id).",
        rarely_needed=True,
        description=(
            "New output of a background command since your last read, its state and exit code. "
            "`wait`: seconds (max 60) to wait for output first."
        ),
        parameters={
            "type": "object",
            "properties": {
                "id": _ID,
                "wait": {"type": "number"},
            },
            "required": ["id"],
        },
        capabilities=Capabilities(kind="other"),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        shells = _shells(ctx)
        if shells is None:
            return ToolOutput.error("no background commands in this session")
        try:
            wait = min(max(float(args.get("wait") or 0), 0.0), MAX_WAIT)
        except (TypeError, ValueError):
            return ToolOutput.error(f"wait must be a number of seconds, got {args.get('wait')!r}")
        return await shells.output(str(args.get("id", "")), wait)


class KillShellTool:
    spec = ToolSpec(
        name="kill_shell",
        brief="Stop a background command (by shell id).",
        rarely_needed=True,
        description="Stop a background command (its whole process group); its output stays readable.",
        parameters={"type": "object", "properties": {"id": _ID}, "required": ["id"]},
        capabilities=Capabilities(kind="other"),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        shells = _shells(ctx)
        if shells is None:
            return ToolOutput.error("no background commands in this session")
        return await shells.kill(str(args.get("id", "")))


def background_tools() -> list[Any]:
    return [BashOutputTool(), KillShellTool()]
