"""`session/load`: a stored session told to the editor again, as the updates it would have seen.

The whole transcript is replayed (not the compacted history the model now holds): the user's
messages, the agent's replies and thinking, each tool call with the view its output left in the
conversation. Notes of our own (an interruption marker) and summaries are said as notices.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from acp.helpers import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)

from agent_tui.acp.translate import KINDS, arguments_of, notice, title_of
from agent_tui.tool_outcome import outcome_of

if TYPE_CHECKING:
    from agent_tui.messages import Message


def replay(messages: Iterable[Message]) -> Iterator[Any]:
    """The updates for a stored transcript, oldest first."""
    for message in messages:
        if message.kind in ("summary", "retain"):
            yield notice("earlier conversation condensed by a compaction")
            continue
        if message.role == "user":
            if message.kind == "note":
                yield notice(message.content or "")
            elif message.content:
                yield update_user_message_text(message.content)
        elif message.role == "assistant":
            if message.reasoning is not None and message.reasoning.text:
                yield update_agent_thought_text(message.reasoning.text)
            if message.content:
                yield update_agent_message_text(message.content)
            for call in message.tool_calls:
                yield start_tool_call(
                    call.id,
                    title_of(call),
                    kind=KINDS.get(call.name, "other"),
                    status="in_progress",
                    raw_input=arguments_of(call) or call.arguments,
                )
        elif message.role == "tool" and message.tool_call_id:
            text = message.content or ""
            yield update_tool_call(
                message.tool_call_id,
                status="completed" if outcome_of(message) == "ok" else "failed",
                content=[tool_content(text_block(text))],
            )
