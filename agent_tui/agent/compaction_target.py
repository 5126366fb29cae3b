"""What the compactor may see of a session, and the one way it hands a compacted history back.

The compactor used to name `AgentSession` itself, while the session builds a compactor: two
modules that could not be read (or type-checked) apart. It now names this protocol, which
`AgentSession` satisfies structurally; the only write is `adopt_history`, the session's own
method, so the session still decides how a new history is applied and persisted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.messages import Message
    from agent_tui.models import ModelLimits
    from agent_tui.store import Store


class CompactionTarget(Protocol):
    """The session, as the compactor reads it."""

    session_id: str
    config: Config
    history: list[Message]
    limits: ModelLimits
    meter: BudgetMeter
    store: Store | None
    last_budget: ContextBudget | None
    turns: int
    hooks: HookRunner | None
    """PreCompact fires through them (agent_tui/hooks/)."""

    @property
    def request_parts(self) -> tuple[list[Any], list[dict[str, Any]]]:
        """The prompt sections and tool schemas of the last measured request."""
        ...

    def measure(self, *, with_status: bool = True) -> ContextBudget: ...

    async def adopt_history(
        self, history: Sequence[Message], *, persist: Sequence[Message] = (), snapshot: bool = False
    ) -> None:
        """Replace the live history; the session rebuilds what derives from it."""
        ...
