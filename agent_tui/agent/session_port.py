"""What the modules the session drives may see of it: narrow protocols, one per use.

Rewind, `!cmd`, the sub-agent manager and /context's sub-agent line each work on a session while
the session calls them, so naming `AgentSession` there made every one of them and the session a
cycle (modules that cannot be read or type-checked apart). They name these protocols instead,
which `AgentSession` satisfies structurally; this module imports nothing that imports the session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_tui.agent import events as ev
    from agent_tui.agent.tool_runner import ToolRunner
    from agent_tui.base.messages import Message, TokenUsage
    from agent_tui.config import Config
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.store import Store


class HistoryOwner(Protocol):
    """A session whose live history can be read and replaced (agent/rewind.py)."""

    session_id: str
    store: Store | None

    @property
    def history(self) -> list[Message]: ...

    async def adopt_history(
        self, history: Sequence[Message], *, persist: Sequence[Message] = (), snapshot: bool = False
    ) -> None:
        """Replace the live history; the session rebuilds what derives from it."""
        ...


class CommandHost(Protocol):
    """A session a user's own command (`!cmd`) runs in (agent/user_command.py)."""

    busy: bool
    runner: ToolRunner

    def measure(self, *, with_status: bool = True) -> ContextBudget: ...

    async def add_user_command(self, text: str) -> None: ...


class WindowOwner(Protocol):
    """A session whose window /context describes (agent/subagent_calls.window_share)."""

    runner: ToolRunner
    meter: BudgetMeter

    @property
    def history(self) -> list[Message]: ...


class SubagentSession(Protocol):
    """A parent or a child of the sub-agent manager (agent/subagents.py): a child is driven for
    one turn and closed; a parent receives its children's usage and cost."""

    session_id: str
    config: Config
    store: Store | None
    workspace: Path
    runner: ToolRunner
    meter: BudgetMeter
    hooks: HookRunner | None
    usage_total: TokenUsage
    cost_total: float | None

    @property
    def history(self) -> list[Message]: ...

    def run_turn(self, prompt: str, *, as_is: bool = False) -> AsyncIterator[ev.AgentEvent]: ...

    async def save_snapshot(self) -> None: ...

    async def close(self) -> None: ...

    def tell_later(self, notes: Sequence[str]) -> None:
        """Say these to the user at the start of the next turn."""
        ...
