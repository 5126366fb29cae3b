"""A tab's behaviour without a screen: what a send, an agent event or a finished worker does.

The rules live in one plain object — the queue of sends made while busy, the busy state, the
rule that puts a failed prompt back in the input, each tool line from start to finish (or denial
or cancellation), the working line's spinner — and each input returns the view operations
(frontends/tui/tab_ops.py) the view applies in order. It imports no Textual, so a property test drives it
through random event sequences (tests/test_tab_controller.py).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, assert_never

from agent_tui.agent import events as ev
from agent_tui.agent.user_command import user_command
from agent_tui.frontends.tui import slash, transcript
from agent_tui.frontends.tui import tab_ops as op
from agent_tui.frontends.tui.compaction_line import compaction_line, strategy_label
from agent_tui.frontends.tui.side_lines import side_lines
from agent_tui.frontends.tui.transcript import NoticeEntry, ThinkingEntry, ToolEntry
from agent_tui.hooks.ran_line import describe

if TYPE_CHECKING:
    from agent_tui.context.budget import ContextBudget

TAB_LABEL = 28
"""Characters of a session's title its tab shows (an ellipsis says when it was cut)."""


def tab_label(title: str) -> str:
    title = " ".join(title.split())
    if len(title) > TAB_LABEL:
        return title[: TAB_LABEL - 1].rstrip() + "…"
    return title or "new"


Outcome = Literal["success", "error", "cancelled"]


@dataclass(frozen=True)
class WorkerEnd:
    """How the tab's worker ended, as the view saw it."""

    name: str
    """The worker's name: `run_turn`, `open_session`, …"""
    outcome: Outcome
    error: str = ""
    """One line of the error (outcome `error`)."""
    has_session: bool = True
    """The tab has a session (with a model) now."""


OPEN_STATES = ("running", "awaiting")  # tool-line states of a call that has not ended


class TabController:
    """The rules of one tab. Inputs are methods; each returns the operations to apply."""

    def __init__(self) -> None:
        self.title, self.named = "new", False  # named: the user's /rename, kept through sends
        self.busy = False
        self.queue: deque[str] = deque()
        self.budget: ContextBudget | None = None
        self.working: str | None = None
        """What the working line's spinner says; None while it is stopped."""
        self.activity: str | None = None
        """The meter's compaction line; None while it is stopped."""
        self.tools: dict[str, ToolEntry] = {}
        """Open tool lines by call id (running or awaiting approval)."""
        self.answer_open = False
        self.thinking_open = False
        self.prompt: str | None = None
        """The send of the running turn, restored if it fails before any reply."""
        self.failed = False
        self.replied = False
        """Text streamed or a tool called in the running turn (then nothing is restored)."""
        self.streamed = 0
        self.cancel_requested = False
        self.compaction_steps: list[str] = []
        self.compaction_reason: str | None = None
        self.compaction_line = ""
        self.side_state: ev.SideStateChanged | None = None
        """The task list and pins last shown (what a change is told against)."""

    # -- user actions ----------------------------------------------------------------------------

    def send(self, text: str, *, has_session: bool, opened: bool = True) -> list[op.ViewOp]:
        """A prompt or command sent: run it now, or queue it while this tab is busy. `opened`:
        the tab's opening has ended with a driver to submit to. Until then a command its driver
        answers (/status, /cost …) waits in the queue even when it runs at once otherwise."""
        parsed = slash.parse(slash.memory_note(text) or text)
        needs_driver = parsed is not None and parsed.command.submits and not opened
        if parsed is not None and parsed.command.runs is slash.Runs.NOW and not needs_driver:
            return [op.RunCommand(parsed)]
        unknown = slash.unknown_command(text)
        if unknown is not None:
            return [op.Notify(slash.unknown_message(unknown), "warning"), op.RestorePrompt(text)]
        if self.busy:
            self.queue.append(text)
            return [op.QueuePush(text)]
        if parsed is not None and needs_driver:  # the opening ended without one: nothing to ask
            message = f"/{parsed.command.name}: the tab's session did not open (details in the log file)."
            return [op.Notify(message, "warning"), op.RestorePrompt(text)]
        if parsed is not None:
            return [op.RunCommand(parsed)]
        if not has_session:
            return [
                op.Notify("No model configured: set one with /model NAME or see the panel.", "error"),
                op.RestorePrompt(text),
            ]
        command = user_command(text)
        if command is not None:  # `!ls`: the user's own command, run unasked (user_command.py)
            return [op.ShowUser(text), *self._start("running"), op.StartWorker("command", command)]
        self.prompt, self.failed, self.replied, self.streamed = text, False, False, 0
        ops: list[op.ViewOp] = [op.ShowUser(text)]
        if not self.named:  # the tab names the request at hand, not the session's first one
            ops += self.retitle(text)
        return [*ops, *self._start("thinking"), op.StartWorker("turn", text)]

    def compact(self, instructions: str | None, *, has_session: bool) -> list[op.ViewOp]:
        """/compact: condense this tab's conversation now."""
        if not has_session:
            return [op.Notify("Nothing to compact: no model configured.", "warning")]
        self.compaction_steps = []
        return [*self._start("compacting"), op.StartWorker("compact", instructions)]

    def review(self, base: str | None, *, has_session: bool) -> list[op.ViewOp]:
        """/review [base]: a sub-agent reviews the diff (agent/review.py)."""
        if not has_session:
            return [op.Notify("Nothing to review with: no model configured.", "warning")]
        typed = f"/review {base}" if base else "/review"
        return [op.ShowUser(typed), *self._start("reviewing"), op.StartWorker("review", base)]

    def command_ran(self) -> list[op.ViewOp]:
        """A command's handler returned. When it started no work (the tab is idle), the next
        send waiting behind it goes out now: no worker's end would move the queue on."""
        if self.busy or not self.queue:
            return []
        return [op.QueuePop(), op.SendNext(self.queue.popleft())]

    def began(self) -> list[op.ViewOp]:
        """The view started a worker of its own (opening a session)."""
        return self._set_busy(True)

    def retitle(self, title: str, *, named: bool = False) -> list[op.ViewOp]:
        self.title, self.named = tab_label(title), self.named or named
        return [op.Retitle(self.title)]

    def cancelling(self) -> None:
        """The user asked to stop the running work (an error it then ends with is the cancel)."""
        self.cancel_requested = True

    def awaiting(self, tool: str | None) -> list[op.ViewOp]:
        """An approval is asked (`tool`) or answered (None) for the newest open tool line."""
        call_id = next((i for i in reversed(self.tools) if self.tools[i].state in OPEN_STATES), None)
        entry = self.tools[call_id] if call_id is not None else None
        if tool is not None:
            ops = self._set_working("awaiting approval")
            if call_id is not None and entry is not None:
                ops += self._update_tool(call_id, dataclasses.replace(entry, state="awaiting"))
            return ops
        if call_id is not None and entry is not None and entry.state == "awaiting":
            return [
                *self._set_working(f"running {entry.name}"),
                *self._update_tool(call_id, dataclasses.replace(entry, state="running")),
            ]
        return []

    def worker_finished(self, end: WorkerEnd) -> list[op.ViewOp]:
        """Every worker of the tab ends here: failures become one line, the queue moves on."""
        cancelled = end.outcome == "cancelled" or self.cancel_requested
        self.cancel_requested = False
        ops: list[op.ViewOp] = []
        if end.outcome == "error" and not cancelled:
            ops.append(
                op.Notify(
                    f"{end.name.replace('_', ' ')} failed: {end.error} (details in the log file)", "error"
                )
            )
            self.failed = True
            if end.name == "open_session" and not end.has_session:
                ops.append(op.MeterPlaceholder("no session: opening it failed (details in the log file)"))
        elif cancelled:
            ops.append(op.AddEntry(NoticeEntry("Cancelled.", "warning")))
        ops += self._settle()
        if end.has_session and (cancelled or self.failed):
            ops.append(op.Remeasure())
        ops += self._set_busy(False)
        if self.failed and self.prompt and not self.replied:
            ops.append(op.RestorePrompt(self.prompt))
        self.prompt = None
        if cancelled and self.queue:
            # Esc stops everything: what waited goes back to the input to edit or send, not on.
            waiting = list(self.queue)
            self.queue.clear()
            ops += [
                *(op.QueuePop() for _ in waiting),
                op.RestorePrompt("\n".join(waiting), before_typed=True),
            ]
        elif self.queue:
            ops += [op.QueuePop(), op.SendNext(self.queue.popleft())]
        return ops

    # -- agent events ----------------------------------------------------------------------------

    def event(self, event: ev.TurnEvent) -> list[op.ViewOp]:
        """One handler per turn event; the match is over the closed set of event types, so an
        event without a handler is a type error (and tests/test_event_schema.py checks it)."""
        match event:
            case ev.TurnStarted():
                return []  # the user's line was shown when it was sent
            case ev.BudgetMeasured():
                self.budget, self.streamed = event.budget, 0
                return [op.ShowBudget(event.budget)]
            case ev.UsageReported():
                return [op.SetCost(event.cost, event.session_cost), op.StepTokens(event.usage.output)]
            case ev.StepStarted():
                return self._set_working("thinking")
            case ev.Retrying():
                return self._set_working(f"retrying {event.attempt}/{event.tries}")
            case ev.TextDelta():
                return self._text(event.text)
            case ev.ReasoningDelta():
                return self._reasoning(event.text)
            case ev.ReasoningFinished():
                return self._reasoning_finished(event)
            case ev.ToolCallStarted():
                return self._tool_started(event)
            case ev.ToolCallFinished():
                return self._tool_finished(event)
            case ev.ToolOutputDelta():
                return [op.ToolOutput(event.call_id, event.text)] if event.call_id in self.tools else []
            case ev.Notice():
                return self._notice(event)
            case ev.ErrorEvent():
                self.failed = True
                return [op.AddEntry(NoticeEntry(event.message, "error")), op.Notify(event.message, "error")]
            case ev.Blocked():
                full = "context full · compacting before your message… (or /handoff [goal])"
                return [*self._set_working("compacting"), *self._set_activity(full)]
            case ev.CompactionStarted():
                self.compaction_steps, self.compaction_reason = [], event.reason
                return [
                    *self._set_working("compacting"),
                    *self._set_activity(f"compacting ({event.reason})…"),
                ]
            case ev.CompactionProgress():
                self.compaction_steps.append(strategy_label(event.strategy))
                return self._set_activity("compacting · " + " → ".join(self.compaction_steps) + "…")
            case ev.CompactionFinished():
                self.compaction_line = compaction_line(event.result, self.compaction_reason)
                # once: in the chat, not again as a toast
                return [
                    *self._set_activity(None),
                    op.AddEntry(NoticeEntry(self.compaction_line, compaction=event.result)),
                ]
            case ev.TurnFinished():
                return self._turn_finished(event)
            case ev.HookRan():
                return self._hook_ran(event)
            case ev.SubagentEvent():
                return [op.ChildEvent(event)]
            case ev.SubagentFinished():
                return [op.ChildEvent(event)]
            case ev.SideStateChanged():
                said, self.side_state = side_lines(event, self.side_state), event
                return [op.AddEntry(NoticeEntry(line)) for line in said]
            case _:
                assert_never(event)

    def _text(self, text: str) -> list[op.ViewOp]:
        ops: list[op.ViewOp] = [op.ThinkingAnswered()] if self.thinking_open else []
        if self.working != "streaming":
            ops += self._set_working("streaming")
        ops += [op.Streamed(text), op.AppendAnswer(text)]
        self.answer_open = self.replied = True
        self.streamed += len(text)
        if self.budget is not None:
            ops.append(op.ShowBudget(self.budget, self.streamed // 4, estimate=True))
        return ops

    def _reasoning(self, text: str) -> list[op.ViewOp]:
        ops = self._set_working("thinking") if self.working != "thinking" else []
        ops.append(op.Streamed(text))  # output tokens too: the count moves while it thinks
        if not self.thinking_open:
            ops += self._commit_answer()  # thinking again after some answer: keep the order
            self.thinking_open = True
        ops.append(op.AppendThinking(text))
        return ops

    def _reasoning_finished(self, event: ev.ReasoningFinished) -> list[op.ViewOp]:
        if self.thinking_open:
            self.thinking_open = False
            return [op.CloseThinking(event.tokens, event.duration)]
        # Only redacted blocks came (nothing streamed): the block still goes above the answer.
        return [op.AddThinkingBlock(ThinkingEntry("", event.tokens, event.duration))]

    def _tool_started(self, event: ev.ToolCallStarted) -> list[op.ViewOp]:
        ops = self._set_working(f"running {event.call.name}")
        self.replied = True  # the message was sent and acted on: a failure later keeps it
        ops += self._commit_answer()
        entry = transcript.tool_started(event.call)
        self.tools[event.call.id] = entry
        return [*ops, op.OpenTool(event.call.id, entry)]

    def _tool_finished(self, event: ev.ToolCallFinished) -> list[op.ViewOp]:
        entry = transcript.tool_finished(
            event.call,
            ref=event.ref,
            is_error=event.is_error,
            summary=event.summary,
            view=event.view,
            duration=event.duration,
            outcome=event.outcome,
            display=event.display,
        )
        if self.tools.pop(event.call.id, None) is None:
            return [op.AddEntry(entry)]
        return [op.CloseTool(event.call.id, entry)]

    def _hook_ran(self, event: ev.HookRan) -> list[op.ViewOp]:

        loud = event.outcome in ("blocked", "error", "timeout")
        if not loud and not event.message:
            return []  # a hook that passed silently: a line per run buried the chat (/hooks lists them)
        entry = NoticeEntry(describe(event), "warning" if loud else "info")
        # A PreToolUse hook ran before the call it checked (the newest open tool line): above it.
        return [op.AddEntry(entry, next(reversed(self.tools), None) if event.event == "PreToolUse" else None)]

    def _notice(self, event: ev.Notice) -> list[op.ViewOp]:
        still_over = "still over" in self.compaction_line.lower()
        if event.code == "compaction_short" and still_over:
            return []  # the compaction's own line already says so: report it once
        return [op.AddEntry(NoticeEntry(event.message, "warning"))]

    def _turn_finished(self, event: ev.TurnFinished) -> list[op.ViewOp]:
        ops = [*self._stop_working(), *self._end_thinking(), *self._commit_answer()]
        if event.stop_reason != "error":
            self.failed = False
        if event.stop_reason == "denied":
            ops.append(op.AddEntry(NoticeEntry("Stopped at the denial: say what to do instead.")))
        return ops

    # -- state changes that are also operations --------------------------------------------------

    def _settle(self) -> list[op.ViewOp]:
        """Stop every spinner of the finished work: the working line, the meter's line, open
        tool lines (cancelled), a thinking block and a live answer."""
        ops = [*self._stop_working(), op.SetActivity(None), op.StopChildren()]
        self.activity = None
        for call_id, entry in list(self.tools.items()):
            ops.append(op.CloseTool(call_id, dataclasses.replace(entry, state="cancelled")))
        self.tools.clear()
        return [*ops, *self._end_thinking(), *self._commit_answer()]

    def _start(self, state: str) -> list[op.ViewOp]:
        self.working = state
        return [op.StartWorking(state), *self._set_busy(True)]

    def _set_working(self, state: str) -> list[op.ViewOp]:
        # A hidden line ignores it (nothing runs that it would describe); the widget decides,
        # since a snapshot test may start the line itself.
        if self.working is not None:
            self.working = state
        return [op.SetWorking(state)]

    def _stop_working(self) -> list[op.ViewOp]:
        self.working = None
        return [op.StopWorking()]

    def _set_activity(self, text: str | None) -> list[op.ViewOp]:
        self.activity = text
        return [op.SetActivity(text)]

    def _update_tool(self, call_id: str, entry: ToolEntry) -> list[op.ViewOp]:
        self.tools[call_id] = entry
        return [op.UpdateTool(call_id, entry)]

    def _end_thinking(self) -> list[op.ViewOp]:
        """A step that stopped while thinking (cancelled, failed): the block keeps what came."""
        if not self.thinking_open:
            return []
        self.thinking_open = False
        return [op.CloseThinking(0, None)]

    def _commit_answer(self) -> list[op.ViewOp]:
        if not self.answer_open:
            return []
        self.answer_open = False
        return [op.CommitAnswer()]

    def _set_busy(self, busy: bool) -> list[op.ViewOp]:
        if busy == self.busy:
            return []
        self.busy = busy
        return [op.BusyChanged(busy)]
