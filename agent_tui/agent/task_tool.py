"""The `task` tool: delegate work to a sub-agent with a fresh window (agent/subagents.py runs it).

The tool's description lists the defined agents (name and description), so the model can pick
one; the list is capped so a folder with many agents cannot crowd the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.base.tool_decl import Capabilities
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from agent_tui.agent.definitions import Definitions
    from agent_tui.config import Config

LISTED_AGENTS = 30
"""Defined agents named in the description; more are still usable by name."""

BASE = (
    "Delegate a self-contained piece of work to a sub-agent that works in its own fresh context "
    "window with your tools (and your permissions), and answers with one envelope: its state "
    "(completed / stopped and why / error), its final answer, usage and cost, and a ref to its "
    "whole transcript (read_result / grep_result it to see anything it read or said). Use it for "
    "exploration whose details you will not need again: searching many files, reading long "
    "logs, running and reading test output. Several task calls in one reply run at the same "
    "time (up to {parallel}). Give a complete brief: the sub-agent sees only your prompt (mode "
    '"fresh") unless you choose mode "fork", which starts it from this conversation.'
)


def describe(definitions: Definitions, config: Config) -> str:
    text = BASE.format(parallel=config.agents.max_parallel)
    agents = sorted(definitions.agents.values(), key=lambda a: a.name)
    if not agents:
        return text
    lines = [f"- {a.name}: {a.description[:200]}" for a in agents[:LISTED_AGENTS]]
    if len(agents) > LISTED_AGENTS:
        lines.append(f"- … and {len(agents) - LISTED_AGENTS} more (pass the name as `agent`)")
    return text + "\n\nDefined agents (pass one as `agent`):\n" + "\n".join(lines)


class TaskRunner(Protocol):
    """What runs a task (the session's sub-agent manager, agent/subagents.py), named here so the
    tool does not import the manager that registers it."""

    def tool_description(self) -> str: ...

    async def run_task(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput: ...


NAME = "task"
CAPABILITIES = Capabilities(kind="other", claude_names=("Task",))
"""What the tool declares, known without a session (its spec is built per session)."""


class TaskTool:
    """Spec built per session (the agent list is the session's); runs through its manager."""

    def __init__(self, agents: TaskRunner) -> None:
        self.agents = agents
        self.spec = ToolSpec(
            name=NAME,
            brief="Hand a self-contained task to a sub-agent; returns its answer.",
            description=agents.tool_description(),
            parameters={
                "type": "object",
                "properties": {
                    "description": {
                        "type": "string",
                        "description": "A few words saying what the sub-agent does (shown to the user).",
                    },
                    "prompt": {"type": "string", "description": "The complete brief for the sub-agent."},
                    "agent": {"type": "string", "description": "A defined agent's name (optional)."},
                    "mode": {
                        "type": "string",
                        "enum": ["fresh", "fork"],
                        "default": "fresh",
                        "description": "fresh: only the brief; fork: start from this conversation.",
                    },
                },
                "required": ["description", "prompt"],
            },
            # The envelope is already a bounded view: the loop passes it as it is.
            paged=True,
            # A small window defers it (last, after MCP and skill tools) like other tool text.
            source="agent",
            capabilities=CAPABILITIES,
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.agents.run_task(args, ctx)
