"""The `skill` tool: the model loads a skill's instructions when it judges them relevant.

Loading turns the skill on for the session: its body joins the system prompt (after the
memories, counted under memories + skills), where compaction never reaches — a loaded skill is
re-sent with every request rather than summarised away — and `/context` counts it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.base.tool_decl import Capabilities
from agent_tui.extensions.skill_resume import loaded_line
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from agent_tui.context.memory import UserPrompts


class SkillTool:
    def __init__(self, prompts: UserPrompts) -> None:
        self.prompts = prompts
        self.spec = ToolSpec(
            name="skill",
            brief="Load a skill's instructions by name (listed under # Skills).",
            rarely_needed=True,
            description=(
                "Load a skill's full instructions by name (the skills are listed under # Skills in "
                "the system prompt). Call it when the task matches a skill's description; the "
                "instructions then stay in your system prompt for the rest of the session."
            ),
            parameters={
                "type": "object",
                "properties": {"name": {"type": "string", "description": "The skill's name."}},
                "required": ["name"],
            },
            source="context",
            capabilities=Capabilities(kind="other"),
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        name = str(args.get("name") or "").strip()
        try:
            skill = self.prompts.activate(name)
        except ValueError as exc:
            return ToolOutput.error(str(exc))
        folder = skill.path.parent
        others = sorted(p.name for p in folder.iterdir() if p.is_file() and p != skill.path)[:20]
        beside = f" Files beside it in {folder}: {', '.join(others)}." if others else ""
        return ToolOutput(
            text=loaded_line(name) + beside,
            summary=f"loaded {name}",
        )
