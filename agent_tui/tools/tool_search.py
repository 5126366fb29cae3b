"""`tool_search(query)`: how the model finds the tools deferral left out.

It ranks the deferrable tools (MCP and skill tools) by name and description and returns the best
matches with their parameter schemas; the matches are offered for the rest of the turn, so the
model can call them on its next step. The session's PromptAssembler does the ranking and the
promotion (`ctx.services.tools.search_tools`); this module only phrases the answer.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.base.tool_decl import Capabilities
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec

DEFAULT_LIMIT = 5
MAX_LIMIT = 20


class ToolSearchTool:
    spec = ToolSpec(
        name="tool_search",
        brief="Find deferred tools by purpose.",
        description=(
            "Find tools that were deferred to save context. Searches tool names and descriptions "
            "and returns the best matches with their parameter schemas; the matches can be "
            "called from your next step until the end of this turn."
        ),
        parameters={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words naming what the tool should do, or its name.",
                },
                "limit": {
                    "type": "integer",
                    "description": "How many tools at most.",
                    "default": DEFAULT_LIMIT,
                },
            },
            "required": ["query"],
        },
        paged=True,  # it returns at most max_message_bytes itself: never cut its schemas
        source="context",
        capabilities=Capabilities(kind="search", stored=False),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        prompts = ctx.services.tools
        if prompts is None:
            return ToolOutput.error("tool search is unavailable in this session")
        query = str(args.get("query") or "").strip()
        if not query:
            return ToolOutput.error("tool_search needs a query, e.g. tool_search(query='git log')")
        limit = max(1, min(int(args.get("limit") or DEFAULT_LIMIT), MAX_LIMIT))
        found = prompts.search_tools(query, limit)
        if not found:
            return ToolOutput(text=f"No tool matches {query!r}. Try other words.", summary="no match")
        return ToolOutput(
            text=format_matches(found, ctx.max_message_bytes),
            summary=f"{len(found)} tool{'s' if len(found) != 1 else ''}",
            meta={"tools": [spec.name for spec in found]},
        )


def format_matches(specs: list[ToolSpec], max_bytes: int) -> str:
    """Name, description and schema of each match, stopping before `max_bytes`."""
    head = f"Found {len(specs)} tool{'s' if len(specs) != 1 else ''}; you can call them from your next step:"
    parts = [head]
    size = len(head.encode())
    for shown, spec in enumerate(specs):
        block = f"\n\n## {spec.name}\n{spec.description.strip()}\nParameters: " + json.dumps(
            spec.parameters, separators=(",", ":"), ensure_ascii=False
        )
        if size + len(block.encode()) > max_bytes - 100:
            parts.append(f"\n\n[{len(specs) - shown} more not shown: narrow the query]")
            break
        parts.append(block)
        size += len(block.encode())
    return "".join(parts)
