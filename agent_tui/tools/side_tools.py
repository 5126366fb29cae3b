"""The model's hands on the state kept beside the conversation: `todo` (its task list) and `pin`
(a fact kept verbatim through every compaction).

Both change the session's `SideState` (context/side_state.py), which the loop sends in its own
prompt sections every step and reports to the front ends as an event; they save it at once, so a
crash right after still resumes with it. Neither touches files, so neither asks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.base.tool_decl import Capabilities
from agent_tui.context.side_state import PinBudgetFull, parse_todos
from agent_tui.tools.base import ToolOutput, ToolSpec

if TYPE_CHECKING:
    from agent_tui.tools.base import ToolContext


async def save(ctx: ToolContext) -> None:
    store = ctx.services.store
    if store is not None:
        await store.side.save(ctx.session_id, *ctx.services.side.dumps())


class TodoTool:
    spec = ToolSpec(
        name="todo",
        brief="Replace your task list (items with content, status, activeForm).",
        rarely_needed=True,  # a luxury a 4 096-token window cannot afford; tool_search finds it
        description=(
            "Your task list for multi-step work; send the whole list (it replaces the last), one "
            "item in_progress. Shown to the user, kept across compaction."
        ),
        parameters={
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                            "activeForm": {"type": "string"},
                        },
                        "required": ["content", "status", "activeForm"],
                    },
                }
            },
            "required": ["todos"],
        },
        source="context",
        capabilities=Capabilities(kind="think", claude_names=("TodoWrite",), stored=False),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            items = parse_todos(args.get("todos"))
        except ValueError as exc:
            return ToolOutput.error(f"todo: {exc}")
        side = ctx.services.side
        side.set_todos(items)
        await save(ctx)
        done = sum(1 for item in items if item.status == "completed")
        text = (
            f"Task list updated ({done}/{len(items)} done):\n{side.todo_text()}"
            if items
            else "Task list cleared."
        )
        return ToolOutput(text=text, summary=f"{done}/{len(items)} done")


class PinTool:
    spec = ToolSpec(
        name="pin",
        brief="Pin a short fact to keep it verbatim through compaction.",
        rarely_needed=True,
        description=(
            "Pin a short fact so it stays verbatim in every request whatever compaction drops "
            "(the user sees it and can unpin it)."
        ),
        parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        source="context",
        capabilities=Capabilities(kind="think", stored=False),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        side = ctx.services.side
        try:
            pin = side.add_pin(str(args.get("text") or ""), by="model")
        except PinBudgetFull as exc:
            return ToolOutput.error(str(exc))
        except ValueError as exc:
            return ToolOutput.error(f"pin: {exc}")
        await save(ctx)
        return ToolOutput(text=f"Pinned as {pin.id} ({pin.tokens} tokens).", summary=pin.id)


def side_tools() -> list[Any]:
    return [TodoTool(), PinTool()]
