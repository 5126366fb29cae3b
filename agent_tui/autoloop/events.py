"""The loop's own events, next to the agent's: `agent-tui loop --json` prints one per line.

They share `AgentEvent.to_json()`, so the field names here are a public interface (documented in
docs/loop.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from agent_tui.agent.events import AgentEvent


@dataclass(frozen=True)
class LoopStarted(AgentEvent):
    type: ClassVar[str] = "loop_started"
    session_id: str
    goal: str
    model: str
    settings: dict[str, Any]
    """max_iterations, raw_window_size, summarize_every, max_summary_tokens, stall_limit."""


@dataclass(frozen=True)
class IterationStarted(AgentEvent):
    type: ClassVar[str] = "iteration_started"
    number: int
    prompt_tokens: int
    """Tokens of the iteration prompt (the loop's count)."""
    used: dict[str, int]
    """Tokens of each part: goal, summary, raw, instructions."""
    allocation: dict[str, Any]
    """Tokens each part may take, the scale and the room (see Allocation.to_json)."""
    raw: tuple[int, ...]
    """Iterations shown raw in this prompt."""
    summary_covers: tuple[int, int] | None
    """First and last iteration the summary in this prompt covers."""


@dataclass(frozen=True)
class IterationFinished(AgentEvent):
    type: ClassVar[str] = "iteration_finished"
    number: int
    score: float
    markers: tuple[str, ...]
    """Every progress marker reported in the iteration."""
    new_markers: tuple[str, ...]
    files_changed: tuple[str, ...]
    ref: str | None
    """Ref id of the whole output in the blob store."""
    duration: float
    prompt_tokens: int
    output_chars: int
    tool_calls: int
    complete: bool
    stop_reason: str
    """The turn's: done / max_steps / error."""


@dataclass(frozen=True)
class SummaryUpdated(AgentEvent):
    type: ClassVar[str] = "summary_updated"
    covers: tuple[int, int]
    """First and last iteration the new summary covers."""
    mode: str
    """fold / regenerate."""
    tokens: int
    ref: str | None
    after_iteration: int


@dataclass(frozen=True)
class SummaryFailed(AgentEvent):
    type: ClassVar[str] = "summary_failed"
    wanted: tuple[int, int]
    """The iterations the summary should have covered."""
    error: str
    retry_at: int
    """The iteration after which the next try happens; until then they stay raw."""
    after_iteration: int


@dataclass(frozen=True)
class LoopFinished(AgentEvent):
    type: ClassVar[str] = "loop_finished"
    reason: str
    """complete / max_iterations / stalled / error."""
    iterations: int
    session_id: str
    text: str = ""
    """The final assistant text of the last iteration."""
