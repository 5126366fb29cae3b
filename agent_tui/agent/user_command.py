"""`!command`: the user runs a command themselves, and the model sees it.

The user typed it, so nobody is asked; it still runs as any bash call does (the configured
sandbox, the scrubbed environment, the process-group watchdog, the output cap) and its output
is stored whole. The conversation gains one user message holding the command, the view of its
output and the ref, so the next turn's model sees what the user saw. A user message followed by
the user's next prompt would be two user turns in a row; the wire step merges those
(agent/wire.py), so strict chat templates still get alternating roles.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.base.messages import ToolCall
from agent_tui.base.user_command_text import user_command_text

if TYPE_CHECKING:
    from agent_tui.agent.session_port import CommandHost
    from agent_tui.agent.tool_runner import ToolRun

PREFIX = "!"


def user_command(text: str) -> str | None:
    """The command of a `!command` input (None when the input is not one)."""
    if not text.startswith(PREFIX):
        return None
    command = text[len(PREFIX) :].strip()
    return command or None


def as_message_text(command: str, run: ToolRun) -> str:
    """What the model reads (agent_tui/base/user_command_text.py)."""
    return user_command_text(command, run.ref.id if run.ref is not None else None, run.message.content or "")


async def run_user_command(session: CommandHost, command: str) -> AsyncIterator[ev.AgentEvent]:
    """Run `command` for the user and add it to `session`'s conversation (see the module doc)."""
    call = ToolCall(
        id=f"user_{uuid.uuid4().hex[:12]}", name="bash", arguments=json.dumps({"command": command})
    )
    session.busy = True
    try:
        yield ev.ToolCallStarted(call)
        run = await session.runner.run(call, ask=False)
        await session.add_user_command(as_message_text(command, run))
        yield ev.ToolCallFinished(
            call,
            run.ref,
            run.is_error,
            run.summary,
            run.message.content or "",
            run.duration,
            run.outcome,
            run.display,
        )
        budget = session.measure()
        yield ev.BudgetMeasured(budget)
    finally:
        session.busy = False
