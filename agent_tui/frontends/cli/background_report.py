"""How headless `run` ends its background commands and says so.

A command the model started in the background ends with the run. Each one still running is
stopped and reported (a `warning` event in `--json`, a line on stderr otherwise); the `result`
object lists every background command of the run with how it ended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession


async def end_background(
    session: AgentSession, emit: Callable[[dict[str, Any]], None] | None, stderr: Callable[[str], None]
) -> list[dict[str, Any]]:
    """Stop what still runs; return every background command's final state for `result`."""

    shells = session.background
    if shells is None:
        return []
    for shell in await shells.end_all():
        ref = f" (output: ref {shell.ref_id})" if shell.ref_id else ""
        message = (
            f"background command {shell.id} `{shell.command}` was still running when run ended; stopped{ref}"
        )
        if emit is not None:
            emit(ev.Notice(message).to_json())
        else:
            stderr(f"agent-tui: {message}")
    return [
        {
            "id": s.id,
            "command": s.command,
            "ref": s.ref_id,
            "state": s.state,
            "exit_code": s.exit_code,
        }
        for s in shells.shells.values()
    ]
