"""What a tab's controller asks its view to do: a small closed set of operations.

`TabController` (frontends/tui/tab_controller.py) decides; `SessionView` applies these in order and does
nothing else of its own accord. Each is a frozen value, so a test can read a controller's
answer without a screen, and the view's `match` over `ViewOp` is checked for completeness by
mypy (`assert_never`). No Textual here: the controller and its property test run without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agent_tui.agent import events as ev
    from agent_tui.context.budget import ContextBudget
    from agent_tui.frontends.tui.slash import ParsedCommand
    from agent_tui.frontends.tui.transcript import Entry, ThinkingEntry, ToolEntry

Severity = Literal["information", "warning", "error"]
WorkerKind = Literal["turn", "command", "compact", "review"]


# -- the tab -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Notify:
    """A toast (a mistake in how something was typed, an error also shown in the chat)."""

    message: str
    severity: Severity = "information"


@dataclass(frozen=True)
class RestorePrompt:
    """Put a send that did not go through back into the input (unless something new is typed)."""

    text: str
    before_typed: bool = False
    """Put it before what is being typed instead of giving way to it (sends a cancel stopped)."""


@dataclass(frozen=True)
class Retitle:
    """The tab's label changed (already cut to fit: `tab_label`)."""

    title: str


@dataclass(frozen=True)
class BusyChanged:
    """The tab started or finished work (the App marks a busy tab's label)."""

    busy: bool


@dataclass(frozen=True)
class QueuePush:
    """A send waits for the running work (shown dimmed)."""

    text: str


@dataclass(frozen=True)
class QueuePop:
    """The oldest waiting send leaves the queue (a `SendNext` follows)."""


@dataclass(frozen=True)
class SendNext:
    """Send the send that waited, now that the tab is idle (through the controller again)."""

    text: str


@dataclass(frozen=True)
class RunCommand:
    """Run a slash command's handler (awaited before the next operation)."""

    parsed: ParsedCommand


@dataclass(frozen=True)
class StartWorker:
    """Start the tab's worker: a turn on `argument`, a `!command`, or a compaction."""

    kind: WorkerKind
    argument: str | None


# -- the chat ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShowUser:
    """The user's send, at the bottom of the chat, which then follows the reply."""

    text: str
    chips: tuple[str, ...] = ()
    """What it attaches, one chip each (`[image shot.png 120 KB]`); the view fills them in."""


@dataclass(frozen=True)
class AddEntry:
    """A line at the bottom of the chat (a notice, a tool call that finished unseen)."""

    entry: Entry


@dataclass(frozen=True)
class AppendAnswer:
    """Streamed answer text; the first fragment opens the live answer block."""

    text: str


@dataclass(frozen=True)
class CommitAnswer:
    """The live answer block is complete (rendered whole, its text kept)."""


@dataclass(frozen=True)
class AppendThinking:
    """Streamed reasoning; the first fragment opens the live thinking block."""

    text: str


@dataclass(frozen=True)
class ThinkingAnswered:
    """The answer began: the thinking block's clock stops."""


@dataclass(frozen=True)
class CloseThinking:
    """The live thinking block ends with these totals (`duration` None: its own clock)."""

    tokens: int
    duration: float | None


@dataclass(frozen=True)
class AddThinkingBlock:
    """A thinking block that streamed nothing (redacted), placed above the live answer."""

    entry: ThinkingEntry


@dataclass(frozen=True)
class OpenTool:
    """A tool call started: its line, found again by `call_id`."""

    call_id: str
    entry: ToolEntry


@dataclass(frozen=True)
class UpdateTool:
    """An open tool line changes state (awaiting approval, running again); it stays open."""

    call_id: str
    entry: ToolEntry


@dataclass(frozen=True)
class CloseTool:
    """An open tool line gets its final entry (finished, denied, cancelled) and is closed."""

    call_id: str
    entry: ToolEntry


@dataclass(frozen=True)
class ChildEvent:
    """A sub-agent's event: its live line under its `task` call (widgets/child_lines.py)."""

    event: ev.SubagentEvent | ev.SubagentFinished


@dataclass(frozen=True)
class StopChildren:
    """The tab's work ended: a child line still running stops counting (its parent was cancelled
    or failed, and its own end may never be reported)."""


# -- the working line and the meter --------------------------------------------------------------


@dataclass(frozen=True)
class StartWorking:
    """The working line's spinner starts (clock and token count from zero)."""

    state: str


@dataclass(frozen=True)
class SetWorking:
    """What the running spinner says it does (a hidden working line ignores it)."""

    state: str


@dataclass(frozen=True)
class StopWorking:
    """The spinner stops and the working line hides."""


@dataclass(frozen=True)
class Streamed:
    """Streamed text the working line counts (at ~4 characters a token)."""

    text: str


@dataclass(frozen=True)
class StepTokens:
    """The provider's output count for the step that ended (replaces the estimate)."""

    tokens: int


@dataclass(frozen=True)
class ShowBudget:
    """The meter shows a budget (`streamed`: estimated tokens of the reply so far)."""

    budget: ContextBudget
    streamed: int = 0
    estimate: bool = False


@dataclass(frozen=True)
class Remeasure:
    """Measure the session again and show it (after a cancelled or failed turn)."""


@dataclass(frozen=True)
class SetCost:
    cost: float | None
    session_cost: float | None


@dataclass(frozen=True)
class SetActivity:
    """The meter's own spinner line (compacting), or None to stop it."""

    text: str | None


@dataclass(frozen=True)
class MeterPlaceholder:
    """No budget to show: the meter says why."""

    text: str


TabOp = BusyChanged | Retitle | SendNext | RunCommand | StartWorker | Remeasure
"""What the view itself does: post its messages, run commands and workers, measure."""

RenderOp = (
    Notify
    | RestorePrompt
    | QueuePush
    | QueuePop
    | ShowUser
    | AddEntry
    | AppendAnswer
    | CommitAnswer
    | AppendThinking
    | ThinkingAnswered
    | CloseThinking
    | AddThinkingBlock
    | OpenTool
    | UpdateTool
    | CloseTool
    | ChildEvent
    | StopChildren
    | StartWorking
    | SetWorking
    | StopWorking
    | Streamed
    | StepTokens
    | ShowBudget
    | SetCost
    | SetActivity
    | MeterPlaceholder
)
"""What changes the tab's widgets (frontends/tui/widgets/tab_render.py applies these)."""

TAB_OPS = (BusyChanged, Retitle, SendNext, RunCommand, StartWorker, Remeasure)
"""`TabOp`'s classes, for `isinstance`."""

ViewOp = TabOp | RenderOp
"""Every operation a view applies (each `match` over them ends in `assert_never`)."""
