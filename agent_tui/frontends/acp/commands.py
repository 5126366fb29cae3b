"""The editor's own form of the registry commands that act on the editor session itself
(frontends/acp/slash.py binds them by name): /compact and /model run their operations (`compact`,
`set_model`), /clear puts another session behind the editor's, /context sends the meter before
its report. Every other command is submitted to the session's driver, which runs its shared effect
(core/command_effects.py); its reply is sent as Markdown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.core import ops
from agent_tui.core.command_host import CommandHost
from agent_tui.llm.models import switched_model

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.context.budget import ContextBudget
    from agent_tui.core import protocol_events as pe


class EditorHost(CommandHost, Protocol):
    """An editor session (frontends/acp/live.py's LiveSession), as its own commands see it."""

    services: AppServices

    def require(self) -> AgentSession:
        """The session behind the editor's (there is one once the session is open)."""
        ...

    def approver(self) -> Any: ...

    async def send_usage(self, budget: ContextBudget | None = None, *, force: bool = True) -> None: ...

    async def run(self, operation: ops.Op) -> Any:
        """Carry out `operation` on the session; its events go out as the editor's updates."""
        ...

    async def answer(self, operation: ops.Op) -> pe.CommandReplied:
        """Submit a command's `operation`; the reply it was answered with."""
        ...

    async def replace(self, opening: Awaitable[AgentSession]) -> AgentSession:
        """Put another session behind the editor's."""
        ...


async def compact(live: EditorHost, argument: str) -> str | None:
    end = await live.run(ops.Compact(argument or None))
    if end is not None and end.state == "interrupted":
        raise asyncio.CancelledError  # the prompt answers `cancelled`, as for a cancelled turn
    return None


async def context(live: EditorHost, argument: str) -> str | None:
    """The meter first, then the report (the driver runs /context's effect, as for /cost)."""
    await live.send_usage(live.require().measure())
    return (await live.answer(ops.RunCommand(f"/context {argument}"))).reply().markdown()


async def clear(live: EditorHost, argument: str) -> str | None:
    before = live.require().session_id
    session = await live.replace(live.services.new_session(live.approver()))
    return (
        f"New conversation (stored as {session.session_id}); the earlier one, {before}, stays in "
        "/resume and `agent-tui sessions list`."
    )


async def model(live: EditorHost, argument: str) -> str | None:

    session = live.require()
    name = argument.strip()
    if not name:
        return f"Model: {session.model}\n\n/model NAME switches this session to another model."
    _settings, left = switched_model(live.services.config.model, name)
    await live.run(ops.SetModel(name))  # a refused model changes nothing (the driver's handler)
    session = live.require()  # the rebuilt session, attached when its session_replaced came
    note = (
        f"\n\n{name} is not on the configured server: {', '.join(left)} from [model] stay behind."
        if left
        else ""
    )
    return f"Model: {session.model} (the conversation goes on){note}"
