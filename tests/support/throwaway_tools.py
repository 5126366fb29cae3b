"""Throwaway tools nothing in agent-tui has heard of: each consumer of a tool's declaration must
treat them by what they declare (tests/test_tool_declarations.py, tests/test_rule_vocabulary.py)."""

from __future__ import annotations

from typing import Any

from agent_tui.base.tool_decl import Capabilities
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec


class StampTool:
    """Writes a stamp line into a file: an editing tool nothing in agent-tui has heard of."""

    spec = ToolSpec(
        name="stamp_file",
        description="Write `content` to the file at `path`.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
        mutates=True,
        capabilities=Capabilities(
            kind="edit",
            path_args=("path",),
            claude_names=("Stamp",),
            time_limited=True,
            checkpointed=True,
            preview="write",
            prose="stamp_file replaces a whole file",
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        (ctx.workspace / args["path"]).write_text(args["content"])
        return ToolOutput(text="stamped", summary="stamped")


class Undeclared:
    """A tool with no declaration, like an MCP server's."""

    spec = ToolSpec("peer__poke", "poke", {"type": "object", "properties": {}})

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text="poked")


class PeekTool:
    """Looks up something the session already holds: a lookup nothing in agent-tui has heard of."""

    spec = ToolSpec(
        "peek_outputs",
        "Peek at a stored output.",
        {"type": "object", "properties": {"query": {"type": "string"}}},
        capabilities=Capabilities(kind="search", stored=False, reads_session=True),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text="peeked")
