"""Sub-agents in the chat: one live line per running child under its `task` call.

The line says what the child is for, its state, elapsed time, tokens and its own context %;
several run at once for parallel children. Enter opens the child's transcript (live while it
runs) with its own meter; when the child ends the line folds to its state and transcript ref.
The lines are widgets mounted beside the chat's items, not chat entries: a finished child's
lasting record is its `task` call's envelope, which the chat already keeps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from agent_tui.agent import events as ev
from agent_tui.base.units import grouped
from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui.widgets.chat_items import spinner_frame

if TYPE_CHECKING:
    from agent_tui.frontends.tui.widgets.chat import ChatPane
    from agent_tui.frontends.tui.widgets.chat_items import ToolLine

FINISHED_MARKS = {"completed": "✓", "stopped": "■", "error": "✗"}


@dataclass
class ChildState:
    """What the line shows of one child, as its events tell it."""

    session_id: str
    description: str
    started: float
    state: str = "running"
    tokens: int = 0
    context: float | None = None
    """Its own window's used fraction (its last budget)."""
    ended: float | None = None
    folded: str = ""
    """After the end: `completed · 4.2 s · s_…/m_1-17`."""

    def line(self) -> Text:
        elapsed = (self.ended or time.monotonic()) - self.started
        if self.ended is not None:
            mark = FINISHED_MARKS.get(self.state.split(":")[0], "■")
            return Text.assemble(
                "  ↳ ",
                (mark, "bold"),
                " ",
                (visible(self.description, one_line=True), "bold"),
                "  ",
                self.folded,
            )
        parts = [self.state, f"{elapsed:.1f} s", f"{grouped(self.tokens)} tokens"]
        if self.context is not None:
            parts.append(f"context {self.context:.0%}")
        return Text.assemble(
            "  ↳ ",
            spinner_frame(),
            " ",
            (visible(self.description, one_line=True), "bold"),
            "  ",
            " · ".join(parts),
        )


class ChildLine(Static):
    """One child's line; Enter opens its transcript."""

    can_focus = True
    BINDINGS: ClassVar = [Binding("enter", "open", "Open sub-agent", show=False)]

    @dataclass
    class Open(Message):
        """Show this child's transcript (the App pushes the screen)."""

        session_id: str
        description: str

    def __init__(self, child: ChildState) -> None:
        super().__init__(child.line(), classes="child-line")
        self.child = child
        self._ticker: Timer | None = None

    def on_mount(self) -> None:
        if self.child.ended is None:
            self._ticker = self.set_interval(0.2, self.refresh_line)

    def refresh_line(self) -> None:
        self.update(self.child.line())
        if self.child.ended is not None and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def action_open(self) -> None:
        self.post_message(self.Open(self.child.session_id, self.child.description))

    def on_click(self) -> None:
        self.action_open()


class ChildLines:
    """A session view's child lines, by the `task` call that started each child."""

    def __init__(self) -> None:
        self.lines: dict[str, ChildLine] = {}

    def stop_running(self) -> None:
        """The parent's work ended (Esc, a failure): lines still running stop their clocks."""
        for line in self.lines.values():
            child = line.child
            if child.ended is None:
                child.ended = time.monotonic()
                child.state = "stopped"
                child.folded = (
                    f"stopped · {child.ended - child.started:.1f} s · {grouped(child.tokens)} tokens"
                )
                line.refresh_line()

    def line_of(self, session_id: str) -> ChildLine | None:
        return next((line for line in self.lines.values() if line.child.session_id == session_id), None)

    async def on_event(
        self, chat: ChatPane, tools: dict[str, ToolLine], session_id: str | None, event: ev.AgentEvent
    ) -> None:
        """Show one child event; `session_id` is the view's (a grandchild's events pass by)."""
        if isinstance(event, ev.SubagentFinished):
            line = self.lines.get(event.call_id)
            if line is None or line.child.session_id != event.session_id:
                return  # a grandchild's end: its own child's line says it
            child = line.child
            child.ended = time.monotonic()
            child.state = event.state if event.reason is None else f"{event.state}: {event.reason}"
            short = event.transcript.rsplit("/", 2)
            ref = (
                f"{short[1]}/m_{short[2].removeprefix('messages:')}" if len(short) == 3 else event.transcript
            )
            child.folded = (
                f"{child.state} · {event.duration:.1f} s · {grouped(event.usage.total)} tokens · {ref}"
            )
            line.refresh_line()
            return
        if not isinstance(event, ev.SubagentEvent):
            return
        line = self.lines.get(event.call_id)
        if line is None:
            if session_id is not None and event.parent_session_id != session_id:
                return
            line = ChildLine(ChildState(event.session_id, event.description, time.monotonic()))
            self.lines[event.call_id] = line
            anchor = tools.get(event.call_id)
            if not chat.is_attached:
                return
            if anchor is not None and anchor.is_mounted:
                await chat.mount(line, after=anchor)
            else:
                await chat.mount(line)
        if line.child.session_id != event.session_id:
            return  # a grandchild's event: its parent's line stands for it
        self._apply(line.child, event.event)

    @staticmethod
    def _apply(child: ChildState, event: ev.AgentEvent) -> None:
        match event:
            case ev.BudgetMeasured(budget=budget):
                child.context = budget.used_fraction
            case ev.UsageReported(usage=usage):
                child.tokens += usage.total
            case ev.StepStarted():
                child.state = "thinking"
            case ev.TextDelta():
                child.state = "writing"
            case ev.ToolCallStarted(call=call):
                child.state = f"running {call.name}"
            case ev.CompactionStarted():
                child.state = "compacting"
            case _:
                pass
