"""The typed events a turn yields. The TUI and headless mode are two consumers of one stream.

Every event has a stable `type` and `to_json()`; `agent-tui run --json` prints one per line, so
the field names here are a public interface (documented in the README).
"""

from __future__ import annotations

import typing
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from agent_tui.llm.errors import Kind as ProviderErrorKind

if TYPE_CHECKING:
    from agent_tui.base.messages import Outcome, ResultRef, TokenUsage, ToolCall
    from agent_tui.context.budget import ContextBudget
    from agent_tui.context.compaction import CompactResult
    from agent_tui.context.side_state import Pin, SideState, TodoItem

__all__ = ["CompactionReason", "ErrorKind", "StopReason"]

ErrorKind = Literal[ProviderErrorKind, "storage"]
"""A provider error's class (llm/errors.py, which says what the user can do about it), or
`storage`: a write the store could not make (a full disk), which the exit code reports."""

StopReason = Literal["done", "max_steps", "error", "denied", "blocked", "hook"]
"""Why a turn ended: its final answer, the step limit, a provider error, a call the user denied
(the model then waits for the user's direction), a hook that refused the prompt (`blocked`), or a
hook that said `continue: false` (`hook`). A cancelled turn ends without `TurnFinished`."""

CompactionReason = Literal["auto", "blocked", "forced", "tool", "context_length"]
"""What started a compaction: the 95% threshold, the 98% block, `/compact` (or `run --compact`,
`sessions compact`), the model's `compact_context` call, or the provider refusing the request as
too long."""


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return {k: _jsonable(v) for k, v in asdict(value).items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class AgentEvent:
    type: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        data = {"type": self.type}
        for key in self.__dataclass_fields__:
            data[key] = _jsonable(getattr(self, key))
        return data


@dataclass(frozen=True)
class TurnStarted(AgentEvent):
    type: ClassVar[str] = "turn_started"
    session_id: str
    prompt: str


@dataclass(frozen=True)
class BudgetMeasured(AgentEvent):
    """The budget of the request about to be sent (or of the history after a change)."""

    type: ClassVar[str] = "budget"
    budget: ContextBudget


@dataclass(frozen=True)
class StepStarted(AgentEvent):
    """A model call begins (the UI shows a spinner until text or a tool call arrives)."""

    type: ClassVar[str] = "step_started"
    step: int


@dataclass(frozen=True)
class TextDelta(AgentEvent):
    type: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True)
class ReasoningDelta(AgentEvent):
    """A piece of a reasoning model's thinking, before (or between) its answer."""

    type: ClassVar[str] = "reasoning_delta"
    text: str


@dataclass(frozen=True)
class ReasoningFinished(AgentEvent):
    """The model stopped thinking for this step: how long, and how many tokens it took."""

    type: ClassVar[str] = "reasoning_finished"
    tokens: int
    """Reported by the provider when it does; else counted from the text."""
    duration: float
    """Seconds from the first reasoning delta to the first answer delta or call."""


@dataclass(frozen=True)
class ToolCallStarted(AgentEvent):
    type: ClassVar[str] = "tool_call_started"
    call: ToolCall


@dataclass(frozen=True)
class ToolCallFinished(AgentEvent):
    type: ClassVar[str] = "tool_call_finished"
    call: ToolCall
    ref: ResultRef | None
    is_error: bool
    summary: str
    """One line for the folded view: `exit 1 · 2.1 s · 48 KB · 1 204 lines`."""
    view: str
    """What the model sees of the output (the in-context view)."""
    duration: float
    outcome: Outcome
    """How the call ended (ok, error, denied: refused before it ran, not_run, cancelled)."""
    display: str = ""
    """What the chat shows under the call's line: an edit's diff, a command's output; empty
    for a paged reader (its line says which lines it read)."""


@dataclass(frozen=True)
class UsageReported(AgentEvent):
    type: ClassVar[str] = "usage"
    usage: TokenUsage
    model: str
    cost: float | None = None
    """USD for this reply; None when the model's prices are unknown."""
    session_cost: float | None = None
    """USD for the session so far; None when unknown."""


NoticeCode = Literal["info", "denied", "compaction_short"]
"""What a notice is about, for whoever must tell notices apart (never their words): `denied` a
call the permission policy refused, `compaction_short` a compaction that could not reach its
target, `info` anything else."""


@dataclass(frozen=True)
class Notice(AgentEvent):
    """Something the user should know that is not an error (a denial, a degraded part)."""

    type: ClassVar[str] = "warning"
    message: str
    code: NoticeCode = "info"


@dataclass(frozen=True)
class ErrorEvent(AgentEvent):
    type: ClassVar[str] = "error"
    message: str
    kind: ErrorKind


@dataclass(frozen=True)
class Retrying(AgentEvent):
    """A model call failed before any of its reply arrived and is tried again after `wait`
    seconds (the provider's retries, llm/provider.py); a later `error` says when it gave up."""

    type: ClassVar[str] = "retrying"
    attempt: int
    """The try about to be made: 2 for the first retry."""
    tries: int
    """Tries in all, the first included."""
    wait: float
    """Seconds before it is made."""
    kind: ProviderErrorKind
    """Why the last try failed: rate_limit, provider (a 5xx) or connection."""
    reason: str
    """The failed try's one-line error."""

    def describe(self) -> str:
        """`retrying 2/3 in 1.0 s (HTTP 500: …)`: one line for plain `run` and the chat."""
        return f"retrying {self.attempt}/{self.tries} in {self.wait:.1f} s ({self.reason})"


@dataclass(frozen=True)
class Blocked(AgentEvent):
    """The window passed the hard block: new input waits while compaction frees room."""

    type: ClassVar[str] = "blocked"
    budget: ContextBudget


@dataclass(frozen=True)
class CompactionStarted(AgentEvent):
    type: ClassVar[str] = "compaction_started"
    reason: CompactionReason
    tokens_before: int


@dataclass(frozen=True)
class CompactionProgress(AgentEvent):
    type: ClassVar[str] = "compaction_progress"
    strategy: str


@dataclass(frozen=True)
class CompactionFinished(AgentEvent):
    type: ClassVar[str] = "compaction_finished"
    result: CompactResult


@dataclass(frozen=True)
class TurnFinished(AgentEvent):
    type: ClassVar[str] = "turn_finished"
    text: str
    """The final assistant text of the turn."""
    stop_reason: StopReason = "done"
    refs: tuple[ResultRef, ...] = field(default_factory=tuple)
    """Outputs stored during the turn."""


@dataclass(frozen=True)
class HookRan(AgentEvent):
    """A configured hook ran (agent_tui/hooks/): shown as a dim line, never hidden."""

    type: ClassVar[str] = "hook"
    event: str
    """PreToolUse / PostToolUse / UserPromptSubmit / Stop / SubagentStop / PreCompact /
    SessionStart / SessionEnd / Notification."""
    command: str
    exit_code: int | None
    """None when it was killed at its timeout or could not start."""
    duration: float
    outcome: str
    """ok / blocked / error / timeout."""
    message: str = ""
    """The block's reason, or what went wrong, or the hook's systemMessage."""
    source: str = ""
    """The file the hook came from."""


@dataclass(frozen=True)
class SubagentEvent(AgentEvent):
    """An event of a sub-agent's turn (agent/subagents.py), passed up its parent's stream."""

    type: ClassVar[str] = "subagent"
    session_id: str
    """The child's session."""
    parent_session_id: str
    """The session whose `task` call started it."""
    call_id: str
    """That `task` call's id."""
    description: str
    """What the parent said the child is for (a few words)."""
    event: AgentEvent
    """The child's own event (any type of this table)."""


@dataclass(frozen=True)
class SubagentFinished(AgentEvent):
    """A sub-agent ended, however it ended: the one place a child's end is announced (the
    `SubagentStop` hook point); its envelope is the `task` call's result."""

    type: ClassVar[str] = "subagent_finished"
    session_id: str
    parent_session_id: str
    call_id: str
    description: str
    state: str
    """completed / stopped / error."""
    reason: str | None
    """Why it stopped or failed: turn limit / context / cancelled / denied / the error."""
    transcript: str
    """`ctx://<project>/<child>/messages:1-N`: everything the child saw and said."""
    answer_ref: ResultRef | None
    """The whole final answer, stored under the parent's session."""
    usage: TokenUsage
    cost: float | None
    duration: float


@dataclass(frozen=True)
class SideStateChanged(AgentEvent):
    """The task list or the pins changed (the todo or pin tool, /pin, /unpin): the whole state
    as it now is, kept beside the conversation and sent every step."""

    type: ClassVar[str] = "side_state"
    todos: tuple[TodoItem, ...]
    """Each `{content, status, activeForm}` (Claude Code's TodoWrite shape)."""
    pins: tuple[Pin, ...]
    """Each `{id, text, by, source, tokens}`; `by` is `user` or `model`."""
    pin_budget: int
    """Tokens all pins together may take."""

    @classmethod
    def of(cls, state: SideState) -> SideStateChanged:
        return cls(tuple(state.todos), tuple(state.pins), state.pin_budget)


TurnEvent = (
    TurnStarted
    | BudgetMeasured
    | StepStarted
    | TextDelta
    | ReasoningDelta
    | ReasoningFinished
    | ToolCallStarted
    | ToolCallFinished
    | UsageReported
    | Notice
    | ErrorEvent
    | Retrying
    | Blocked
    | CompactionStarted
    | CompactionProgress
    | CompactionFinished
    | TurnFinished
    | HookRan
    | SubagentEvent
    | SubagentFinished
    | SideStateChanged
)
"""Every event a turn or a compaction emits: the closed set the TUI and `--json` must handle."""

TURN_EVENT_TYPES: tuple[type[AgentEvent], ...] = typing.get_args(TurnEvent)
