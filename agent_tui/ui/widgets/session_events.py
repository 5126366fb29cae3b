"""How a session view shows the agent's events: one handler per event type, run in order.

A mixin of `SessionView` (it uses the view's chat, meter, thinking line and turn state); kept
apart so the view itself is about sessions, sends and workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.ui import transcript
from agent_tui.ui.events import AgentEventMessage
from agent_tui.ui.transcript import AgentEntry, NoticeEntry
from agent_tui.ui.widgets.meter import ContextMeter
from agent_tui.ui.widgets.status import ThinkingLine

if TYPE_CHECKING:
    from agent_tui.agent import events as ev


class EventRendering:
    """`_on_<event.type>` handlers; an event type without one is ignored."""

    chat: Any
    meter: Any
    app: Any

    async def on_agent_event_message(self, message: AgentEventMessage) -> None:
        message.stop()
        event = message.event
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is not None:
            await handler(event)

    async def _on_budget(self, event: ev.BudgetMeasured) -> None:
        self.budget, self._streamed = event.budget, 0
        self.meter.post_message(ContextMeter.Update(event.budget))

    async def _on_usage(self, event: ev.UsageReported) -> None:
        self.meter.set_cost(event.cost, event.session_cost)

    async def _on_step_started(self, event: ev.StepStarted) -> None:
        self.query_one(ThinkingLine).show(True)

    async def _on_text_delta(self, event: ev.TextDelta) -> None:
        self.query_one(ThinkingLine).show(False)
        if self._live is None:
            self._live = await self.chat.add(AgentEntry(""))
        self._live.append(event.text)
        self._replied = True
        self._streamed += len(event.text)
        if self.budget is not None:
            self.meter.post_message(ContextMeter.Update(self.budget, self._streamed // 4, estimate=True))

    async def _on_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self.query_one(ThinkingLine).show(False)
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
        await self.chat.add(NoticeEntry(event.message, "warning"))

    async def _on_error(self, event: ev.ErrorEvent) -> None:
        self._failed = True
        await self.chat.add(NoticeEntry(event.message, "error"))
        self.app.notify(event.message, severity="error")

    async def _on_blocked(self, event: ev.Blocked) -> None:
        self.meter.set_activity("context full · compacting before your message…")

    async def _on_compaction_started(self, event: ev.CompactionStarted) -> None:
        self._compaction_steps = []
        self.meter.set_activity(f"compacting ({event.reason})…")

    async def _on_compaction_progress(self, event: ev.CompactionProgress) -> None:
        from agent_tui.context.compaction.result import LABELS  # the chain's imports are heavy

        self._compaction_steps.append(LABELS.get(event.strategy, event.strategy))
        self.meter.set_activity("compacting · " + " → ".join(self._compaction_steps) + "…")

    async def _on_compaction_finished(self, event: ev.CompactionFinished) -> None:
        self.meter.set_activity(None)
        result = event.result
        line = result.describe() if hasattr(result, "describe") else "Compacted."
        await self.chat.add(NoticeEntry(line))
        self.app.notify(line, title="Compaction")

    async def _on_turn_finished(self, event: ev.TurnFinished) -> None:
        self.query_one(ThinkingLine).show(False)
        if self._live is not None:
            self.chat.commit(self._live)
            self._live = None
        if event.stop_reason != "error":
            self._failed = False
