"""Turn events → ACP `session/update` payloads: what the editor shows of a turn.

One `TurnUpdates` per session keeps the little state the protocol needs across events (the tool
call being run, a file's text before an edit, the last usage sent). Every event of the closed set
in `agent/events.py` has a branch (tests/test_acp_translate.py checks that none is forgotten).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import schema as s
from acp.helpers import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)

from agent_tui.agent import events as ev
from agent_tui.base import tool_decl
from agent_tui.hooks.ran_line import describe
from agent_tui.tools.base import short_arguments
from agent_tui.tools.registry import declare_builtins
from agent_tui.tools.workspace import PathError, resolve_path

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.base.messages import ToolCall
    from agent_tui.context.budget import ContextBudget

log = logging.getLogger(__name__)

DIFF_LIMIT = 1_000_000
"""Bytes of a file sent whole in an edit's diff; a larger file's edit is shown as our view."""


STOP_REASONS: dict[str, s.StopReason] = {
    "done": "end_turn",
    "max_steps": "max_turn_requests",
    "error": "end_turn",
    "denied": "end_turn",
}


def arguments_of(call: ToolCall) -> dict[str, Any]:
    try:
        return call.parsed_arguments()
    except ValueError:
        return {}


def title_of(call: ToolCall) -> str:
    """What the editor's tool card is called: the command, the path, else name and arguments."""

    declare_builtins()
    args = arguments_of(call)
    if tool_decl.preview_of(call.name) == "command" and isinstance(args.get("command"), str):
        return args["command"].strip().splitlines()[0][:200] if args["command"].strip() else call.name
    if isinstance(path := tool_decl.path_of(call.name, args), str):
        return f"{call.name} {path}"
    short = short_arguments(call.arguments)
    return f"{call.name} {short}".strip()


def kind_of(name: str) -> s.ToolKind:
    """The editor's card kind: what the tool declares, `other` for MCP and unknown tools."""
    declare_builtins()
    declared = tool_decl.declared(name)
    return declared.kind if declared is not None else "other"


def usage_update(budget: ContextBudget, cost: float | None) -> s.UsageUpdate:
    """The meter's numbers: tokens in the window of the next request, out of the effective window
    (the window less the reply reserve) — the same figures as the meter and /context."""
    return s.UsageUpdate(
        session_update="usage_update",
        used=max(budget.used, 0),
        size=max(budget.effective_window, 0),
        cost=s.Cost(amount=cost, currency="USD") if cost is not None else None,
        field_meta={
            "agentTui": {
                "window": budget.total,
                "reservedOutput": budget.max_output_tokens,
                "usedFraction": round(budget.used_fraction, 4),
                "components": budget.components(),
            }
        },
    )


class TurnUpdates:
    """Translates one session's events; `updates(event)` returns what to send, in order."""

    def __init__(self, session: AgentSession, terminals: dict[str, str] | None = None) -> None:
        self.session = session
        self.terminals: dict[str, str] = terminals if terminals is not None else {}
        """The editor terminal each call ran in, by call id (frontends/acp/terminal.py fills it)."""
        self._before: dict[str, str | None] = {}
        """File text before an edit call ran, by call id."""
        self._compactions = 0
        self._compaction_id: str | None = None
        self._last_usage: tuple[int, int, float | None] | None = None
        self.current_call: ToolCall | None = None
        """The call last started: the one an approval question is about."""
        self.shown_calls: set[str] = set()
        """Calls the editor has a card for (started, not yet finished)."""
        self.stop_reason: s.StopReason = "end_turn"
        self._pins_seen: set[str] = set()
        """Pins already told to the editor (a model's new pin is said once)."""

    @property
    def workspace(self) -> Path:
        return self.session.workspace

    def usage(self, budget: ContextBudget | None = None, *, force: bool = False) -> list[Any]:
        """A usage_update unless it would repeat the last one sent."""
        budget = budget or self.session.measure()
        cost = self.session.cost_total
        key = (budget.used, budget.effective_window, cost)
        if key == self._last_usage and not force:
            return []
        self._last_usage = key
        return [usage_update(budget, cost)]

    def updates(self, event: ev.AgentEvent) -> list[Any]:
        match event:
            case ev.TurnStarted() | ev.StepStarted() | ev.ReasoningFinished() | ev.Retrying():
                return []
            case ev.BudgetMeasured(budget=budget):
                return self.usage(budget)
            case ev.UsageReported():
                # The reply's report recalibrates the meter: say where it now stands.
                return self.usage()
            case ev.TextDelta(text=text):
                return [update_agent_message_text(text)]
            case ev.ReasoningDelta(text=text):
                return [update_agent_thought_text(text)]
            case ev.ToolCallStarted(call=call):
                return [self._started(call)]
            case ev.ToolCallFinished():
                return [self._finished(event)]
            case ev.Notice(message=message):
                return [notice(message)]
            case ev.ErrorEvent(message=message, kind=kind):
                return [notice(f"error ({kind}): {message}")]
            case ev.Blocked(budget=budget):
                return [notice(f"context {budget.used_fraction:.0%} full: blocked, compacting")]
            case ev.CompactionStarted(reason=reason, tokens_before=before):
                self._compactions += 1
                self._compaction_id = f"compact-{self._compactions}"
                return [
                    start_tool_call(
                        self._compaction_id,
                        f"Compact context ({reason}, {before:,} tokens)",
                        kind="other",
                        status="in_progress",
                    )
                ]
            case ev.CompactionProgress(strategy=strategy):
                if self._compaction_id is None:
                    return []
                return [update_tool_call(self._compaction_id, title=f"Compact context: {strategy}")]
            case ev.CompactionFinished(result=result):
                return self._compacted(result)
            case ev.TurnFinished(stop_reason=reason):
                self.stop_reason = STOP_REASONS.get(reason, "end_turn")
                return []
            case ev.ToolOutputDelta():
                return []  # the card gets the output when the call finishes (or the editor's terminal shows it)
            case ev.HookRan():
                return [notice(describe(event))]
            case ev.SubagentEvent():
                # The child's own turn stays in its session (readable by its transcript ref); the
                # editor follows it through the parent's `task` card, finished below.
                return []
            case ev.SubagentFinished(description=description, state=state, reason=why, transcript=uri):
                said = f"{state}: {why}" if why else state
                return [update_tool_call(event.call_id, title=f"sub-agent “{description}” {said} · {uri}")]
            case ev.SideStateChanged(todos=todos, pins=pins):
                # The task list is the editor's plan; a pin the model set is said in the chat.
                fresh = [p for p in pins if p.by == "model" and p.id not in self._pins_seen]
                self._pins_seen = {p.id for p in pins}
                return [
                    update_plan(plan_entry(t.content, status=t.status) for t in todos),
                    *(notice(f"The model pinned {p.id}: {p.text} (/unpin {p.id} removes it)") for p in fresh),
                ]
        log.warning("no ACP update for event %s", type(event).__name__)
        return []

    def _started(self, call: ToolCall) -> s.ToolCallStart:
        self.current_call = call
        self.shown_calls.add(call.id)
        args = arguments_of(call)
        locations = None
        path = self._path(call.name, args)
        if path is not None:
            locations = [s.ToolCallLocation(path=str(path))]
            if tool_decl.checkpointed(call.name):
                self._before[call.id] = _read_text(path)
        return start_tool_call(
            call.id,
            title_of(call),
            kind=kind_of(call.name),
            status="in_progress",
            locations=locations,
            raw_input=args or call.arguments,
        )

    def _finished(self, event: ev.ToolCallFinished) -> s.ToolCallProgress:
        call = event.call
        self.shown_calls.discard(call.id)
        if self.current_call is not None and self.current_call.id == call.id:
            self.current_call = None
        content: list[Any] = []
        before = self._before.pop(call.id, None)
        path = self._path(call.name, arguments_of(call))
        if tool_decl.checkpointed(call.name) and not event.is_error and path is not None:
            after = _read_text(path)
            if after is not None:
                content.append(tool_diff_content(str(path), after, before))
        terminal = self.terminals.pop(call.id, None)
        if terminal is not None:
            # The editor shows the output in its terminal; the card keeps it, and says our status.
            ref = f" · ref {event.ref.id}" if event.ref is not None else ""
            content.append(s.TerminalToolCallContent(type="terminal", terminal_id=terminal))
            content.append(tool_content(text_block(f"{event.summary}{ref}")))
        if not content:
            # Our view of the output: head and tail with the ref footer when it was large.
            content.append(tool_content(text_block(event.view or event.summary)))
        meta: dict[str, Any] = {"summary": event.summary, "duration": round(event.duration, 3)}
        if event.ref is not None:
            meta["ref"] = event.ref.id
        return s.ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=call.id,
            status="failed" if event.is_error else "completed",
            content=content,
            raw_output={"summary": event.summary, "ref": event.ref.id if event.ref else None},
            field_meta={"agentTui": meta},
        )

    def _compacted(self, result: Any) -> list[Any]:
        text = result.describe() if hasattr(result, "describe") else str(result)
        out: list[Any] = []
        if self._compaction_id is not None:
            out.append(
                update_tool_call(
                    self._compaction_id,
                    status="completed",
                    content=[tool_content(text_block(text))],
                    raw_output=result.to_json() if hasattr(result, "to_json") else None,
                )
            )
            self._compaction_id = None
        out.append(notice(text))
        # After a compaction the meter is measured again (the history was rebuilt).
        out.extend(self.usage(force=True))
        return out

    def _path(self, name: str, args: dict[str, Any]) -> Path | None:

        raw = tool_decl.path_of(name, args)
        if not isinstance(raw, str):
            return None
        try:
            return resolve_path(self.workspace, raw)
        except (PathError, OSError, ValueError):
            return None


def notice(message: str) -> s.AgentMessageChunk:
    """A notice of ours as its own paragraph of the agent's message."""
    return update_agent_message_text(f"\n\n_agent-tui: {message}_\n\n")


def _read_text(path: Path) -> str | None:
    """A file's text for a diff: None when missing, binary or too large to send whole."""
    try:
        if not path.is_file() or path.stat().st_size > DIFF_LIMIT:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace")
