"""`session/load`: a stored session told to the editor again, as the updates it would have seen.

The whole transcript is replayed (not the compacted history the model now holds): the user's
messages, the agent's replies and thinking, each tool call with the view its output left in the
conversation. Notes of our own (an interruption marker) and summaries are said as notices. A
`!command` the user ran is what they typed, then its bash card, as the TUI's resume shows it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from acp.helpers import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)

from agent_tui.base.messages import Message, ToolCall
from agent_tui.base.tool_outcome import legacy_outcome, outcome_of
from agent_tui.base.user_command_text import UserCommandText, parse_user_command, typed_text
from agent_tui.frontends.acp.translate import arguments_of, kind_of, notice, title_of


def replay(messages: Iterable[Message]) -> Iterator[Any]:
    """The updates for a stored transcript, oldest first."""
    for message in messages:
        if message.kind in ("summary", "retain"):
            yield notice("earlier conversation condensed by a compaction")
            continue
        if message.role == "user":
            if message.kind == "note":
                yield notice(message.content or "")
            elif ran := parse_user_command(message.content):
                yield from _user_command(message.id, ran)
            elif message.content:
                yield update_user_message_text(typed_text(message.content))
        elif message.role == "assistant":
            if message.reasoning is not None and message.reasoning.text:
                yield update_agent_thought_text(message.reasoning.text)
            if message.content:
                yield update_agent_message_text(message.content)
            for call in message.tool_calls:
                yield start_tool_call(
                    call.id,
                    title_of(call),
                    kind=kind_of(call.name),
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


def _user_command(message_id: str, ran: UserCommandText) -> Iterator[Any]:
    """A `!command`: the user's `!cmd`, then the card of the bash run with its view and ref."""
    call_id = f"user-{message_id}"  # the stored message is the command's only identity
    view = ran.output.rstrip("\n")
    yield update_user_message_text(f"!{ran.command}")
    call = ToolCall(call_id, "bash", json.dumps({"command": ran.command}))
    yield start_tool_call(
        call_id, title_of(call), kind="execute", status="in_progress", raw_input={"command": ran.command}
    )
    # The message keeps the output's view, not a code: its text is all there is to judge by.
    yield update_tool_call(
        call_id,
        status="completed" if legacy_outcome(view) == "ok" else "failed",
        content=[tool_content(text_block(view))],
        raw_output={"ref": ran.ref},
    )
