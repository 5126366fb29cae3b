"""The blob browser's rows as values: listings and recall hits in one shape, and their cells.

Kept apart from the screen so the figures (size, lines, age, reads) and the snippet marking are
tested without Textual, and so a frozen clock makes the ages the same on every run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.text import Text

from agent_tui.base.messages import ResultRef
from agent_tui.frontends.tui import formatting
from agent_tui.store.refs import build_range_uri, build_uri
from agent_tui.tools.base import short_arguments

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.store import BlobInfo, MessageHit, RecallHit, ResolvedRef, SessionInfo, Store

Scope = Literal["session", "project", "all"]
SCOPES: tuple[tuple[str, Scope], ...] = (
    ("this session", "session"),
    ("this project", "project"),
    ("everything", "all"),
)
SCOPE_LABELS = {value: label for label, value in SCOPES}
Source = Literal["outputs", "conversation"]
"""What the browser lists and searches: stored outputs, or what was said (transcripts)."""
FIRST_LINE_WIDTH = 58


@dataclass(frozen=True)
class BlobRow:
    """One stored output as the browser lists it."""

    ref: ResultRef
    """Id, size, line count, tool."""
    project: str
    """Working directory of its session."""
    session_id: str
    created: float | None = None
    """When it was stored (None for a search hit not in the listing)."""
    access_count: int | None = None
    """Reads so far (None when unknown)."""
    text: str = ""
    """Its first line, or for a search hit the snippet around the match."""
    line: int | None = None
    """For a search hit: the first line of the part the match is in."""
    seq: int | None = None
    """For a transcript row: the message to open at (a conversation hit), else None."""
    transcript: bool = False
    """A session's transcript (conversation view), not a stored output."""

    @property
    def uri(self) -> str:
        if self.transcript:
            first, last = (self.seq, self.seq) if self.seq else (1, max(self.ref.line_count, 1))
            return build_range_uri(self.project, self.session_id, first, last)
        return build_uri(self.project, self.session_id, self.ref.id)

    def cells(self, now: float) -> tuple[str | Text, ...]:
        ref = self.ref
        if self.transcript:
            age = formatting.age(max(0.0, now - self.created)) if self.created is not None else "—"
            what = f"#{self.seq}" if self.seq else f"{formatting.count(ref.line_count)} msgs"
            return (ref.id, ref.tool_name, "—", what, age, "—", snippet_text(self.text))
        age = formatting.age(max(0.0, now - self.created)) if self.created is not None else "—"
        reads = f"{self.access_count}×" if self.access_count is not None else "—"
        return (
            ref.id,
            tool_cell(ref.tool_name),
            formatting.size(ref.byte_size),
            formatting.count(ref.line_count),
            age,
            reads,
            snippet_text(self.text),
        )


CHECKPOINT_PREFIX = "checkpoint:"
"""Blobs /undo keeps (a file's content before an edit) are stored under `checkpoint:TOOL`."""


def tool_cell(tool_name: str) -> str | Text:
    """The tool column: an undo snapshot says so, dimmed, so it is not read as a tool output."""
    if tool_name.startswith(CHECKPOINT_PREFIX):
        tool = tool_name[len(CHECKPOINT_PREFIX) :].split("_")[0]
        return Text(f"{tool} snapshot", style="dim italic")
    return tool_name


def from_info(info: BlobInfo) -> BlobRow:
    return BlobRow(
        info.ref, info.project, info.ref.session_id or "", info.created, info.access_count, info.first_line
    )


def from_hit(hit: RecallHit, known: dict[str, BlobRow]) -> BlobRow:
    listed = known.get(hit.ref.id)
    return BlobRow(
        hit.ref,
        hit.project,
        hit.session_id,
        listed.created if listed else None,
        listed.access_count if listed else None,
        hit.snippet,
        hit.lines[0],
    )


def from_session(info: SessionInfo) -> BlobRow:
    """A session's transcript, listed in the conversation view (line_count holds its messages)."""
    ref = ResultRef(info.id, 0, info.message_count, "transcript", info.id)
    return BlobRow(ref, info.project, info.id, info.updated, None, info.title or "", transcript=True)


def from_message_hit(hit: MessageHit) -> BlobRow:
    """A message recall found; the table key is unique across sessions."""
    ref = ResultRef(f"m_{hit.seq}-{hit.seq}", 0, 0, hit.role, hit.session_id)
    return BlobRow(
        ref, hit.project, hit.session_id, hit.created, None, hit.snippet, seq=hit.seq, transcript=True
    )


async def conversation_rows(
    store: Store, query: str, where: dict[str, str | None], list_limit: int, search_limit: int
) -> list[BlobRow]:
    """The conversation view's rows: recall hits over what was said when there is a query,
    else the transcripts of the scope's sessions."""
    if query.strip():
        return [
            from_message_hit(h) for h in await store.transcript.recall(query, limit=search_limit, **where)
        ]
    if where["session_id"]:
        return [from_session(await store.sessions.get(where["session_id"]))]
    return [from_session(s) for s in await store.sessions.list(where["project"], list_limit)]


def row_key(row: BlobRow) -> str:
    return f"{row.session_id}/{row.ref.id}" if row.transcript else row.ref.id


def from_resolved(resolved: ResolvedRef) -> BlobRow:
    return BlobRow(resolved.ref, resolved.project, resolved.ref.session_id or "")


_MARK = re.compile(r"\[([^\[\]]+)\]")


def snippet_text(text: str, width: int = FIRST_LINE_WIDTH) -> Text:
    """One line of at most `width` cells; recall's [matched terms] bold (brackets kept, so a
    match reads without colour), and the first of them always in view."""
    line = " ".join(text.split())
    first = line.find("[")
    if first > width // 3 and len(line) > width:
        line = "…" + line[first - width // 3 :]
    if len(line) > width:
        line = line[: width - 1] + "…"
    out = Text(no_wrap=True, overflow="ellipsis")
    position = 0
    for match in _MARK.finditer(line):
        out.append(line[position : match.start()])
        out.append(match.group(0), style="bold underline")
        position = match.end()
    out.append(line[position:])
    return out


def scope_filter(scope: Scope, session_id: str | None, project: str | None) -> dict[str, str | None]:
    """The `session_id` / `project` arguments of list_blobs and recall for a scope."""
    if scope == "session" and session_id:
        return {"session_id": session_id, "project": None}
    if scope in ("session", "project") and project:
        return {"session_id": None, "project": project}
    return {"session_id": None, "project": None}


def terms_pattern(query: str) -> str | None:
    """A case-insensitive regex of a recall query's words, to mark them in the viewer. Recall
    matches every word of a query (an OR query, any of them): so are the marks, each word on a
    line that holds all of them (a line with only `17` is no match of "step 17 inspect")."""
    words = [w for w in re.findall(r"\w+", query) if w.upper() not in ("AND", "OR", "NOT")]
    if not words:
        return None
    any_word = "(?:" + "|".join(re.escape(w) for w in words) + ")"
    if len(set(words)) == 1 or re.search(r"\bOR\b", query):
        return "(?i)" + any_word
    # The `regex` module's variable-length lookbehind: the line, from its start, holds each word.
    every = "".join(f"(?=.*{re.escape(w)})" for w in dict.fromkeys(words))
    return f"(?i)(?<=^{every}.*){any_word}"


def syntax_hints(history: Sequence[Message]) -> dict[str, str]:
    """ref id → the path a file tool read, from a session's history (picks the viewer's
    syntax: a Python file read by read_file is highlighted as Python)."""
    paths: dict[str, str] = {}
    for message in history:
        for call in message.tool_calls:
            try:
                args = json.loads(call.arguments or "{}")
            except ValueError:
                continue
            if isinstance(args, dict) and isinstance(args.get("path"), str):
                paths[call.id] = args["path"]
    return {
        m.output_ref.id: paths[m.tool_call_id]
        for m in history
        if m.role == "tool" and m.output_ref is not None and m.tool_call_id in paths
    }


CALL_LABEL = 16
"""Characters of a call's headline argument the tool column shows beside the tool."""


def call_labels(history: Sequence[Message]) -> dict[str, str]:
    """ref id → the call that made it, `bash pytest -q`: thirty hits read `bash 236 KB 3 000`
    alike; the command tells them apart."""

    calls = {call.id: call for message in history for call in message.tool_calls}
    labels = {}
    for m in history:
        call = calls.get(m.tool_call_id or "") if m.role == "tool" else None
        if call is not None and m.output_ref is not None:
            labels[m.output_ref.id] = f"{call.name} {short_arguments(call.arguments, CALL_LABEL)}".rstrip()
    return labels
