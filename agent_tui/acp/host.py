"""What an editor slash command may use of its editor session (acp/live.py's LiveSession is
one): a narrow protocol, so the commands and their registry do not depend on the session class
that dispatches to them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.context.budget import ContextBudget
    from agent_tui.extensions.commands import CustomCommand
    from agent_tui.factory import AppServices


class CommandHost(Protocol):
    services: AppServices

    @property
    def session_id(self) -> str:
        """The id the editor knows the session by."""
        ...

    @property
    def mode(self) -> str: ...

    def require(self) -> AgentSession:
        """The session behind the editor's (there is one once the session is open)."""
        ...

    def approver(self) -> Any: ...

    def custom_commands(self) -> list[CustomCommand]: ...

    async def send_usage(self, budget: ContextBudget | None = None, *, force: bool = True) -> None: ...

    async def play(self, events: AsyncIterator[Any]) -> None:
        """Send our events as the editor's updates."""
        ...

    async def replace(self, opening: Awaitable[AgentSession]) -> AgentSession:
        """Put another session behind the editor's."""
        ...
