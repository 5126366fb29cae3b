"""What the chat pane shows, as values: one entry per user prompt, reply, tool call or notice.

The pane keeps the whole list (cheap) and mounts widgets only for the part near the viewport, so
turning a 2 000-message history into entries must not touch Textual at all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.base.messages import Message
from agent_tui.base.tool_outcome import outcome_of
from agent_tui.base.user_command_text import UserCommandText, parse_user_command, typed_text
from agent_tui.frontends.tui import formatting
from agent_tui.tools.base import short_arguments
from agent_tui.tools.bash_status import summary_from_status
from agent_tui.tools.file_status import summary_from_page, summary_from_report

if TYPE_CHECKING:
    from agent_tui.base.messages import Outcome, ResultRef, ToolCall

ToolState = Literal["awaiting", "running", "ok", "error", "cancelled"]
Level = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class UserEntry:
    text: str
    """What the user sent."""
    chips: tuple[str, ...] = ()
    """One `[image shot.png 120 KB]` per picture that went with it."""


@dataclass(frozen=True)
class AgentEntry:
    text: str
    """The assistant's Markdown (grows while streaming)."""


@dataclass(frozen=True)
class ToolEntry:
    """One tool call, folded to a line; the body is what the model saw of the output."""

    name: str
    """Tool name (or `summary` for a compaction summary)."""
    arguments: str
    """The arguments as one short line."""
    state: ToolState
    detail: str = ""
    """Status after it ran: `exit 1 · 2.1 s · 48 KB · 1204 lines · ref r_7f3a`."""
    body: str = ""
    """The in-context view, shown when unfolded."""
    call_id: str | None = None
    """Which call this is, to finish the running line."""
    ref: str | None = None
    """The result ref id, if the output was stored."""
    display: str = ""
    """What shows under the line (frontends/tui/tool_preview.py): a command's output, an edit's diff."""
    line_count: int = 0
    """Lines of the whole stored output (its ref's count; 0 when not stored): `display` may be
    only its head and tail, and the fold under the line counts what the line's status counts."""


@dataclass(frozen=True)
class ThinkingEntry:
    """A reasoning model's thinking before its answer, folded to a line above the reply."""

    text: str
    """The whole reasoning text (what unfolding shows)."""
    tokens: int = 0
    """Reasoning tokens (0: not known, e.g. a step cut off while thinking)."""
    duration: float = 0.0
    """Seconds the model thought."""
    done: bool = True
    """False while it streams: a live tail shows instead of the totals."""


@dataclass(frozen=True)
class NoticeEntry:
    text: str
    level: Level = "info"
    compaction: Any = None
    """The compaction (a `CompactResult` with its record) this line reports: the line opens it."""


@dataclass(frozen=True)
class OutputEntry:
    """What a slash command printed: a block in the chat that scrolls with it (ui/command_output)."""

    command: str
    """The command as typed, shown as the block's head: `/tools`."""
    text: str
    """Its output, plain text (several lines; never parsed as markup)."""
    level: Level = "info"


Entry = UserEntry | AgentEntry | ToolEntry | NoticeEntry | ThinkingEntry | OutputEntry


def tool_started(call: ToolCall) -> ToolEntry:
    return ToolEntry(call.name, short_arguments(call.arguments), "running", call_id=call.id)


def tool_finished(
    call: ToolCall,
    *,
    ref: ResultRef | None,
    is_error: bool,
    summary: str,
    view: str,
    duration: float | None,
    outcome: Outcome,
    display: str = "",
) -> ToolEntry:
    state: ToolState = "error" if is_error else "ok"
    # A denied call never ran: a duration there would only be the user's think time.
    return ToolEntry(
        call.name,
        short_arguments(call.arguments),
        state,
        detail=formatting.with_duration(summary, None if outcome == "denied" else duration),
        body=view,
        call_id=call.id,
        ref=ref.id if ref else None,
        display=display,
        line_count=ref.line_count if ref else 0,
    )


_STATES: dict[Outcome, ToolState] = {
    "ok": "ok",
    "error": "error",
    "denied": "error",
    "not_run": "cancelled",
    "cancelled": "cancelled",
}
"""A stored call's line as the live one ended."""


def _history_detail(
    message: Message | None, *, bash: bool = False, page: bool = False
) -> tuple[ToolState, str, str, str | None]:
    if message is None:
        return "cancelled", "no result", "", None
    content = message.content or ""
    ref = message.output_ref
    parts: list[str] = []
    if bash and (status := summary_from_status(content)):
        parts.append(status)  # as the live line began: `exit 0 · 0.9 s`
    elif page and (lines := summary_from_page(content)):
        parts.append(lines)  # as the live line said: `lines 1-69 of 1931`
    elif report := summary_from_report(content):
        # An edit's or write's stored report: its status, not the report's own size.
        return (
            _STATES[outcome_of(message)],
            " · ".join([report, *([f"ref {ref.id}"] if ref else [])]),
            content,
            ref.id if ref else None,
        )
    if ref is not None:
        parts += [
            formatting.size(ref.byte_size),
            formatting.line_count(ref.line_count),
            f"ref {ref.id}",
        ]
    else:
        parts.append(formatting.line_count(content.count(chr(10)) + 1))
    outcome = outcome_of(message)
    if outcome == "denied":
        return "error", "denied", content, None  # as the live line said: the call never ran
    return _STATES[outcome], " · ".join(parts), content, ref.id if ref else None


def entries_from_history(
    messages: Sequence[Message], after: Mapping[int, Sequence[Entry]] | None = None
) -> list[Entry]:
    """The chat entries of a stored conversation (tool results joined to their calls); `after`
    puts lines shown live between messages (a compaction's) after the message of that index."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    entries: list[Entry] = [*(after or {}).get(-1, ())]
    for index, message in enumerate(messages):
        if index > 0 and after and index - 1 in after:
            entries += after[index - 1]
        if message.role == "user":
            if message.kind == "note":
                entries.append(NoticeEntry(message.content or "", "warning"))
            elif message.kind in ("summary", "retain"):
                entries.append(_summary_entry(message))
            elif ran := parse_user_command(message.content):
                # As it was shown live: what the user typed, then the command's tool line.
                entries += [UserEntry(f"!{ran.command}"), _user_command_entry(ran)]
            else:
                chips = tuple(i.chip() for i in message.images)
                entries.append(UserEntry(typed_text(message.content), chips))
        elif message.role == "assistant":
            if message.kind in ("summary", "retain"):
                entries.append(_summary_entry(message))
            else:
                thought = message.reasoning
                if thought is not None and not thought.empty:  # above the reply, as it was shown
                    entries.append(ThinkingEntry(thought.text, thought.tokens, thought.duration))
                if message.content:
                    entries.append(AgentEntry(message.content))
            for call in message.tool_calls:
                result = results.get(call.id)
                state, detail, body, ref = _history_detail(
                    result, bash=call.name == "bash", page=call.name == "read_file"
                )
                # A command's output shows under it as it did live (an edit's diff is not stored).
                shown = body if result is not None and summary_from_status(body) else ""
                entries.append(
                    ToolEntry(
                        call.name,
                        short_arguments(call.arguments),
                        state,
                        detail,
                        body,
                        call.id,
                        ref,
                        shown,
                        line_count=result.output_ref.line_count if result and result.output_ref else 0,
                    )
                )
        elif message.role == "system" and message.kind in ("summary", "retain"):
            entries.append(_summary_entry(message))
    if messages and after and len(messages) - 1 in after:
        entries += after[len(messages) - 1]
    return entries


def _user_command_entry(ran: UserCommandText) -> ToolEntry:
    """A `!command` as its live tool line showed it: the command, its output's view, the ref."""
    state, detail, body, _ = _history_detail(Message(role="tool", content=ran.output.rstrip("\n")), bash=True)
    if ran.ref is not None:
        detail = f"{detail} · ref {ran.ref}"
    arguments = short_arguments(json.dumps({"command": ran.command}))
    return ToolEntry("bash", arguments, state, detail, body, None, ran.ref, body)


def _summary_entry(message: Message) -> ToolEntry:
    text = message.content or ""
    label = "retained" if message.kind == "retain" else "summary"
    return ToolEntry(
        label, "earlier conversation, compacted", "ok", f"{formatting.count(len(text.split()))} words", text
    )
