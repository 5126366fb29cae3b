"""How a session view shows the agent's events: one handler per event type, run in order.

A mixin of `SessionView` (it uses the view's chat, meter, thinking line and turn state); kept
apart so the view itself is about sessions, sends and workers.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, assert_never

from agent_tui.agent import events as ev
from agent_tui.ui import transcript
from agent_tui.ui.events import AgentEventMessage
from agent_tui.ui.transcript import AgentEntry, NoticeEntry, ThinkingEntry
from agent_tui.ui.widgets.meter import ContextMeter
from agent_tui.ui.widgets.status import WorkingLine

if TYPE_CHECKING:
    from textual.widget import Widget

    from agent_tui.context.budget import ContextBudget
    from agent_tui.ui.widgets.chat import ChatPane
    from agent_tui.ui.widgets.chat_items import AgentItem, ToolLine
    from agent_tui.ui.widgets.child_lines import ChildLine
    from agent_tui.ui.widgets.thinking import ThinkingItem

    class _ViewBase(Widget):
        """What the handlers use of `SessionView`, so mypy checks them against it."""

        @property
        def chat(self) -> ChatPane: ...
        @property
        def meter(self) -> ContextMeter: ...
else:
    _ViewBase = object

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    ChildLineOpen = ChildLine.Open


class EventRendering(_ViewBase):
    """One handler per turn event; `render_event` dispatches on the closed set of event types,
    so an event without a handler is a type error (and a test checks the set is complete)."""

    budget: ContextBudget | None
    _streamed: int
    _live: AgentItem | None
    _thinking: ThinkingItem | None
    _replied: bool
    _failed: bool
    _tools: dict[str, ToolLine]
    _compaction_steps: list[str]
    _compaction_line: str = ""

    async def on_agent_event_message(self, message: AgentEventMessage) -> None:
        message.stop()
        event = message.event
        if isinstance(event, ev.TurnEvent):
            await self.render_event(event)
        else:
            log.warning("no view for event %s", type(event).__name__)

    async def render_event(self, event: ev.TurnEvent) -> None:
        match event:
            case ev.TurnStarted():
                pass  # the user's line was shown when it was sent
            case ev.BudgetMeasured():
                await self._on_budget(event)
            case ev.UsageReported():
                await self._on_usage(event)
            case ev.StepStarted():
                await self._on_step_started(event)
            case ev.TextDelta():
                await self._on_text_delta(event)
            case ev.ReasoningDelta():
                await self._on_reasoning_delta(event)
            case ev.ReasoningFinished():
                await self._on_reasoning_finished(event)
            case ev.ToolCallStarted():
                await self._on_tool_call_started(event)
            case ev.ToolCallFinished():
                await self._on_tool_call_finished(event)
            case ev.Notice():
                await self._on_warning(event)
            case ev.ErrorEvent():
                await self._on_error(event)
            case ev.Retrying():
                self.query_one(WorkingLine).set_state(f"retrying {event.attempt}/{event.tries}")
            case ev.Blocked():
                await self._on_blocked(event)
            case ev.CompactionStarted():
                await self._on_compaction_started(event)
            case ev.CompactionProgress():
                await self._on_compaction_progress(event)
            case ev.CompactionFinished():
                await self._on_compaction_finished(event)
            case ev.TurnFinished():
                await self._on_turn_finished(event)
            case ev.HookRan():
                await self._on_hook_ran(event)
            case ev.SubagentEvent():
                await self._on_subagent(event)
            case ev.SubagentFinished():
                await self._on_subagent(event)
            case _:
                assert_never(event)

    async def _on_hook_ran(self, event: ev.HookRan) -> None:
        from agent_tui.hooks.runner import describe

        loud = event.outcome in ("blocked", "error", "timeout")
        await self.chat.add(NoticeEntry(describe(event), "warning" if loud else "info"))

    async def _on_subagent(self, event: ev.SubagentEvent | ev.SubagentFinished) -> None:
        """A child's event: its live line under its `task` call (ui/widgets/child_lines.py)."""
        from agent_tui.ui.widgets.child_lines import ChildLines

        lines = self.__dict__.setdefault("_child_lines", ChildLines())
        session = getattr(self, "session", None)
        await lines.on_event(self.chat, self._tools, getattr(session, "session_id", None), event)

    def on_child_line_open(self, message: ChildLineOpen) -> None:
        """Enter on a child's line: its transcript, live while it runs, with its own meter."""
        from agent_tui.ui.screens.child import ChildScreen

        message.stop()
        session = getattr(self, "session", None)
        lines = self.__dict__.get("_child_lines")
        line = lines.line_of(message.session_id) if lines is not None else None
        status = (lambda: line.child.line().plain.split("  ", 1)[-1]) if line is not None else None
        if session is not None and session.store is not None:
            self.app.push_screen(ChildScreen(session.store, message.session_id, message.description, status))

    async def _on_budget(self, event: ev.BudgetMeasured) -> None:
        self.budget, self._streamed = event.budget, 0
        self.meter.post_message(ContextMeter.Update(event.budget))

    async def _on_usage(self, event: ev.UsageReported) -> None:
        self.meter.set_cost(event.cost, event.session_cost)
        self.query_one(WorkingLine).step_reported(event.usage.output)

    async def _on_step_started(self, event: ev.StepStarted) -> None:
        self.query_one(WorkingLine).set_state("thinking")

    async def _on_reasoning_delta(self, event: ev.ReasoningDelta) -> None:
        working = self.query_one(WorkingLine)
        if working.state != "thinking":
            working.set_state("thinking")
        working.streamed(event.text)  # output tokens too: the count moves while it thinks
        if self._thinking is None:
            if self._live is not None:  # thinking again after some answer: keep the order
                self.chat.commit(self._live)
                self._live = None
            self._thinking = await self.chat.add(ThinkingEntry("", done=False))
        self._thinking.append(event.text)

    async def _on_reasoning_finished(self, event: ev.ReasoningFinished) -> None:
        item, self._thinking = self._thinking, None
        if item is not None:
            self.chat.replace(item, item.finished(event.tokens, event.duration))
            return
        # Only redacted blocks came (nothing streamed): the block still goes above the answer.
        entry = ThinkingEntry("", event.tokens, event.duration)
        if self._live is not None:
            await self.chat.add_before(self._live, entry)
        else:
            await self.chat.add(entry)

    def end_thinking(self) -> None:
        """A step that stopped while thinking (cancelled, failed): the block keeps what came."""
        item, self._thinking = self._thinking, None
        if item is not None:
            self.chat.replace(item, item.finished(0))

    async def _on_text_delta(self, event: ev.TextDelta) -> None:
        if self._thinking is not None:
            self._thinking.answered()
        working = self.query_one(WorkingLine)
        if working.state != "streaming":
            working.set_state("streaming")
        working.streamed(event.text)
        if self._live is None:
            self._live = await self.chat.add(AgentEntry(""))
        self._live.append(event.text)
        self._replied = True
        self._streamed += len(event.text)
        if self.budget is not None:
            self.meter.post_message(ContextMeter.Update(self.budget, self._streamed // 4, estimate=True))

    async def _on_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self.query_one(WorkingLine).set_state(f"running {event.call.name}")
        self._replied = True  # the message was sent and acted on: a failure later keeps it
        if self._live is not None:
            self.chat.commit(self._live)
            self._live = None
        self._tools[event.call.id] = await self.chat.add(transcript.tool_started(event.call))

    async def _on_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        entry = transcript.tool_finished(
            event.call,
            ref=event.ref,
            is_error=event.is_error,
            summary=event.summary,
            view=event.view,
            duration=event.duration,
        )
        item = self._tools.pop(event.call.id, None)
        if item is None:
            await self.chat.add(entry)
        else:
            self.chat.replace(item, entry)

    async def _on_warning(self, event: ev.Notice) -> None:
        reported = self._compaction_line
        still_over = "still over" in reported.lower()
        if event.code == "compaction_short" and still_over:
            return  # the compaction's own line already says so: report it once
        await self.chat.add(NoticeEntry(event.message, "warning"))

    async def _on_error(self, event: ev.ErrorEvent) -> None:
        self._failed = True
        await self.chat.add(NoticeEntry(event.message, "error"))
        self.app.notify(event.message, severity="error")

    async def _on_blocked(self, event: ev.Blocked) -> None:
        self.query_one(WorkingLine).set_state("compacting")
        self.meter.set_activity("context full · compacting before your message…")

    async def _on_compaction_started(self, event: ev.CompactionStarted) -> None:
        self._compaction_steps = []
        self._compaction_reason = event.reason
        self.query_one(WorkingLine).set_state("compacting")
        self.meter.set_activity(f"compacting ({event.reason})…")

    async def _on_compaction_progress(self, event: ev.CompactionProgress) -> None:
        from agent_tui.context.compaction.result import LABELS  # the chain's imports are heavy

        self._compaction_steps.append(LABELS.get(event.strategy, event.strategy))
        self.meter.set_activity("compacting · " + " → ".join(self._compaction_steps) + "…")

    async def _on_compaction_finished(self, event: ev.CompactionFinished) -> None:
        self.meter.set_activity(None)
        result = event.result
        from agent_tui.ui.compaction_line import compaction_line

        line = compaction_line(result, getattr(self, "_compaction_reason", None))
        self._compaction_line = line
        await self.chat.add(NoticeEntry(line))  # once: in the chat, not again as a toast

    async def _on_turn_finished(self, event: ev.TurnFinished) -> None:
        self.query_one(WorkingLine).stop()
        session = getattr(self, "session", None)
        if session is not None:  # the user reads now: tiktoken loads for exact counts from here
            session.meter.counter.load_soon()
        self.end_thinking()
        if self._live is not None:
            self.chat.commit(self._live)
            self._live = None
        if event.stop_reason != "error":
            self._failed = False
        if event.stop_reason == "denied":
            await self.chat.add(NoticeEntry("Stopped at the denial: say what to do instead."))
