"""Every tool agent-tui itself ships, for the tests that hold each one to its declaration."""

from __future__ import annotations

from typing import Any

from agent_tui.agent.task_tool import TaskTool
from agent_tui.context.memory import UserPrompts
from agent_tui.extensions.skill_tool import SkillTool
from agent_tui.tools.background_tools import background_tools
from agent_tui.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.tools.context_tools import context_tools
from agent_tui.tools.registry import builtin_tools
from agent_tui.tools.tool_search import ToolSearchTool


class _Agents:
    """Enough of a sub-agent manager for the `task` tool's spec to be built."""

    def tool_description(self) -> str:
        return "Run a sub-agent."

    async def run_task(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text="")


def every_builtin() -> list[Tool]:
    """Every tool agent-tui itself ships, whoever registers it."""
    return [
        *builtin_tools(),
        *context_tools(),
        *background_tools(),
        ToolSearchTool(),
        TaskTool(_Agents()),
        SkillTool(UserPrompts()),
    ]


BUILTIN_NAMES = {tool.spec.name for tool in every_builtin()}
