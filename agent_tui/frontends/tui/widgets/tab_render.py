"""How a tab's widgets show the controller's operations: the chat's live blocks, tool lines,
the working line, the meter, the queue and the input.

It holds only widget handles (the live answer, the live thinking block, the open tool lines,
the sub-agents' lines); every decision about them was made by `TabController`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never

from agent_tui.frontends.tui import tab_ops as op
from agent_tui.frontends.tui.transcript import AgentEntry, ThinkingEntry, UserEntry
from agent_tui.frontends.tui.widgets.chat import ChatPane
from agent_tui.frontends.tui.widgets.child_lines import ChildLines
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from agent_tui.frontends.tui.widgets.status import QueuePanel, WorkingLine
from agent_tui.frontends.tui.widgets.status_line import StatusLineBar

if TYPE_CHECKING:
    from textual.widget import Widget

    from agent_tui.frontends.tui.widgets.chat_items import AgentItem, ToolLine
    from agent_tui.frontends.tui.widgets.child_lines import ChildLines
    from agent_tui.frontends.tui.widgets.thinking import ThinkingItem


class TabRenderer:
    """Applies `RenderOp`s to the widgets under `root` (one tab's session view)."""

    def __init__(self, root: Widget, session_id: Callable[[], str | None]) -> None:
        self.root = root
        self.session_id = session_id
        self.live: AgentItem | None = None
        self.thinking: ThinkingItem | None = None
        self.tools: dict[str, ToolLine] = {}
        self.child_lines: ChildLines | None = None

    @property
    def chat(self) -> ChatPane:
        return self.root.query_one(ChatPane)

    @property
    def meter(self) -> ContextMeter:
        return self.root.query_one(ContextMeter)

    @property
    def working(self) -> WorkingLine:
        return self.root.query_one(WorkingLine)

    async def apply(self, operation: op.RenderOp) -> None:
        match operation:
            case op.Notify(message, severity):
                self.root.app.notify(message, severity=severity)
            case op.RestorePrompt(text, before_typed):
                prompt = self.root.query_one(PromptInput)
                if not prompt.text.strip():  # unless something new is being typed there
                    prompt.set_text(prompt.pastes.fold(text))
                elif before_typed:
                    prompt.set_text(f"{prompt.pastes.fold(text)}\n{prompt.text}")
            case op.QueuePush(text):
                await self.root.query_one(QueuePanel).push(text)
            case op.QueuePop():
                await self.root.query_one(QueuePanel).pop()
            case op.ShowUser(text, chips):
                await self.chat.add(UserEntry(text, chips))
                self.chat.anchor()
            case op.AddEntry(entry, above):
                if above is not None and (line := self.tools.get(above)) is not None:
                    await self.chat.add_before(line, entry)
                else:
                    await self.chat.add(entry)
            case op.AppendAnswer(text):
                if self.live is None:  # mounted with its first text: built once, not empty then again
                    self.live = await self.chat.add(AgentEntry(text))
                else:
                    self.live.append(text)
            case op.CommitAnswer():
                if self.live is not None:
                    self.chat.commit(self.live)
                    self.live = None
            case op.AppendThinking(text):
                if self.thinking is None:
                    self.thinking = await self.chat.add(ThinkingEntry("", done=False))
                self.thinking.append(text)
            case op.ThinkingAnswered():
                if self.thinking is not None:
                    self.thinking.answered()
            case op.CloseThinking(tokens, duration):
                item, self.thinking = self.thinking, None
                if item is not None:
                    self.chat.replace(item, item.finished(tokens, duration))
            case op.AddThinkingBlock(entry):
                if self.live is not None:
                    await self.chat.add_before(self.live, entry)
                else:
                    await self.chat.add(entry)
            case op.OpenTool(call_id, entry):
                self.tools[call_id] = await self.chat.add(entry)
            case op.UpdateTool(call_id, entry):
                if (line := self.tools.get(call_id)) is not None:
                    line.set_entry(entry)
            case op.ToolOutput(call_id, text):
                if (line := self.tools.get(call_id)) is not None:
                    line.add_output(text)
            case op.CloseTool(call_id, entry):
                if (line := self.tools.pop(call_id, None)) is not None:
                    self.chat.replace(line, entry)
                else:
                    await self.chat.add(entry)
            case op.ChildEvent(event):
                if self.child_lines is None:
                    self.child_lines = ChildLines()
                await self.child_lines.on_event(self.chat, self.tools, self.session_id(), event)
            case op.StopChildren():
                if self.child_lines is not None:
                    self.child_lines.stop_running()
            case op.StartWorking(state):
                self.working.start(state)
            case op.SetWorking(state):
                self.working.set_state(state)
            case op.StopWorking():
                self.working.stop()
            case op.Streamed(text):
                self.working.streamed(text)
            case op.StepTokens(tokens):
                self.working.step_reported(tokens)
            case op.ShowBudget(budget, streamed, estimate):
                self.meter.post_message(ContextMeter.Update(budget, streamed, estimate=estimate))
                if not estimate:  # measured, not streaming: what the status line shows changed
                    self.root.query_one(StatusLineBar).request()
            case op.SetCost(cost, session_cost):
                self.meter.set_cost(cost, session_cost)
                self.root.query_one(StatusLineBar).request()
            case op.SetActivity(text):
                self.meter.set_activity(text)
            case op.MeterPlaceholder(text):
                self.meter.placeholder = text
                self.meter.show(None)
            case _:
                assert_never(operation)
