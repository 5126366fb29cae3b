"""The transcript as memory: ranges of it read and grepped like an output, its text searchable.

Compaction takes messages out of the window, never out of the store: the append-only transcript
keeps them, and the note that replaces them names their range (`m_12-340`, or
`ctx://<project>/<session>/messages:12-340` from another session). Here a range is rendered as
numbered, role-labelled text — each message under a `#<n> <role>` line, tool calls with their
arguments, tool results as the view the model saw plus their ref — that `read_result` pages
through by message number and `grep_result` searches line by line. The user's and the
assistant's words and the tool-call arguments are also in an FTS5 index (`message_fts`, filled
as messages are appended: `conversation_index.py`), which `recall` ranks by BM25.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from agent_tui.base.bounded_regex import (
    DEFAULT_BUDGET,
    Deadline,
    Pattern,
    SearchStopped,
    in_daemon_thread,
    stopped_message,
)
from agent_tui.base.messages import Message
from agent_tui.context import views
from agent_tui.context.compaction.ref_labels import extent
from agent_tui.store.db import Database
from agent_tui.store.errors import BadRef, LineRangeError, RefNotFound, StoreError
from agent_tui.store.grep import ContextWindow, compile_pattern
from agent_tui.store.hit_links import link_outputs
from agent_tui.store.models import MessageHit
from agent_tui.store.recall import Queries, fts_match
from agent_tui.store.refs import build_range_uri, parse_ref, range_id

READ_MESSAGES = 40
"""Messages `read_result` shows at once on a range when no limit is given."""


INLINE_RESULT_LINES = 4
INLINE_RESULT_CHARS = 400
"""A tool result no bigger than this shows whole on a page; a bigger one as one line."""


def render_message(seq: int, message: Message, max_line_length: int, whole: bool = True) -> list[str]:
    """`#<n> <role>` then the message's lines: what a range read shows of one message. Not
    `whole`, a tool result bigger than a few lines is one line — its ref, size and first line —
    so a page holds calls with their results (reading its ref, or the one message, shows it)."""
    label = f"#{seq} {message.role}"
    if message.role == "tool":
        label += f" ({message.name or 'tool'} result"
        label += f", ref={message.output_ref.id})" if message.output_ref is not None else ")"
        if not whole and (line := result_line(seq, message)) is not None:
            return [line]
    elif message.kind != "chat":
        label += f" ({message.kind})"
    lines = [label]
    if message.content:
        lines.extend(views.cut_line(line, max_line_length)[0] for line in message.content.split("\n"))
    for call in message.tool_calls:
        lines.append(views.cut_line(f"→ {call.name} {call.arguments}", max_line_length)[0])
    return lines


def result_line(seq: int, message: Message) -> str | None:
    """`#11 tool (bash result, ref=r_…, 20 KB, 420 lines): <first line>`; None for a result
    small enough to show whole."""
    text = message.content or ""
    ref = message.output_ref
    if ref is None and text.count("\n") < INLINE_RESULT_LINES and len(text) <= INLINE_RESULT_CHARS:
        return None
    first = next((part for part in text.split("\n") if part.strip()), "")
    first = " ".join(first.split())[:120]
    name = message.name or "tool"
    if ref is not None:
        return f"#{seq} tool ({name} result, ref={ref.id}, {extent(ref.byte_size, ref.line_count)}): {first}"
    lines = text.count("\n") + 1
    one = range_id(seq, seq)
    return f'#{seq} tool ({name} result, {lines} lines, read_result(ref_id="{one}") shows it): {first}'


@dataclass(frozen=True)
class ResolvedRange:
    """A transcript range checked against the database."""

    session_id: str
    project: str
    first: int
    last: int
    """Clipped to the transcript's end."""
    handle: str
    """How to name it in hints: the short form inside its own session, else the URI."""


class TranscriptStore:
    """Reads and searches the transcripts of every session."""

    def __init__(self, db: Database, search_timeout: float = DEFAULT_BUDGET) -> None:
        self.db = db
        self.search_timeout = search_timeout
        """Seconds one grep over a range may spend on regex work ([tools] search_timeout)."""

    async def resolve(self, text: str, session_id: str | None = None) -> ResolvedRange:
        """`m_<a>-<b>` (a range of `session_id`) or `ctx://<project>/<session>/messages:<a>-<b>`."""
        parsed = parse_ref(text)
        if parsed.messages is None:
            raise BadRef(f"{text!r} is not a transcript range (m_<a>-<b>)")
        owner = parsed.session_id or session_id
        if owner is None:
            raise BadRef(
                f"{text!r} names messages of the current session, and there is none here; "
                "use ctx://<project>/<session>/messages:<a>-<b>"
            )
        row = await self.db.fetchone(
            "SELECT project, (SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = ?) "
            "FROM sessions WHERE id = ?",
            (owner, owner),
        )
        if row is None:
            raise RefNotFound(f"no session {owner}: the range {text!r} cannot be read")
        project, count = row
        if parsed.project is not None and parsed.project != project:
            raise RefNotFound(
                f"session {owner} belongs to {project}, not {parsed.project}: "
                f"use {build_range_uri(project, owner, *parsed.messages)}"
            )
        first, last = parsed.messages
        if first > count:
            raise LineRangeError(
                f"message {first} does not exist: the transcript of {owner} has {count} messages"
            )
        last = min(last, count)
        own = parsed.session_id is None or parsed.session_id == session_id
        handle = range_id(first, last) if own else build_range_uri(project, owner, first, last)
        return ResolvedRange(owner, project, first, last, handle)

    async def _rows(self, span: ResolvedRange, start: int, stop: int) -> list[tuple[int, Message]]:
        rows = await self.db.fetchall(
            "SELECT seq, json FROM messages WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
            (span.session_id, start, stop),
        )
        return [(seq, Message.loads(text)) for seq, text in rows]

    async def read(
        self,
        ref: str,
        offset: int | None = None,
        limit: int | None = None,
        session_id: str | None = None,
        max_bytes: int = 51200,
        max_line_length: int = 2000,
    ) -> str:
        """Messages `offset..offset+limit-1` of the range (message numbers), at most `max_bytes`,
        with a header and a footer saying how to page on."""
        span = await self.resolve(ref, session_id)
        start = span.first if offset is None else offset
        if not span.first <= start <= span.last:
            raise LineRangeError(
                f"offset {start} is outside {span.handle}: use a message number from "
                f"{span.first} to {span.last}"
            )
        count = READ_MESSAGES if limit is None else limit
        if count < 1:
            raise LineRangeError(f"limit must be at least 1 (got {count})")
        stop = min(span.last, start + count - 1)
        body: list[str] = []
        used = 0
        shown = start - 1
        cut_note = ""
        whole = start == stop  # one message asked for: its whole view
        for seq, message in await self._rows(span, start, stop):
            lines = render_message(seq, message, max_line_length, whole)
            cost = sum(len(line.encode()) + 1 for line in lines)
            if body and used + cost > max_bytes:
                break
            if cost > max_bytes:  # one message bigger than a whole read: its head, and how to find more
                kept: list[str] = []
                for line in lines:
                    used += len(line.encode()) + 1
                    if used > max_bytes:
                        break
                    kept.append(line)
                lines = kept
                one = range_id(seq, seq) if span.handle.startswith("m_") else span.handle
                cut_note = (
                    f'[message #{seq} is cut here; grep_result(ref_id="{one}", pattern=…) finds lines in it]'
                )
            else:
                used += cost
            body.extend(lines)
            shown = seq
            if cut_note:
                break
        header = (
            f"[{span.handle} (transcript of session {span.session_id}, messages "
            f"{span.first}-{span.last}): messages {start}-{shown}]"
        )
        if shown < span.last:
            footer = f'[messages {shown + 1}-{span.last} remain: read_result(ref_id="{span.handle}", offset={shown + 1})]'
        else:
            footer = f"[end of {span.handle}]"
        return "\n".join([header, *body, *([cut_note] if cut_note else []), footer])

    async def grep(
        self,
        ref: str,
        pattern: str,
        context: int = 0,
        session_id: str | None = None,
        max_matches: int = 200,
        max_bytes: int = 51200,
        max_line_length: int = 2000,
    ) -> str:
        """Lines of the range's messages matching `pattern`, as `#<n> <role>: line`."""
        regex = compile_pattern(pattern)
        span = await self.resolve(ref, session_id)
        out: list[str] = []
        used = matches = 0
        truncated = False
        batch = 200
        # The regex runs in a daemon thread against a deadline, like grep_result's: a runaway
        # pattern stops with a note instead of freezing the event loop (bounded_regex.py).
        deadline = Deadline(self.search_timeout)
        stopped = False
        for start in range(span.first, span.last + 1, batch):
            rows = [
                (seq, message, render_message(seq, message, max_line_length))
                for seq, message in await self._rows(span, start, min(span.last, start + batch - 1))
            ]
            try:
                found = await in_daemon_thread(partial(_hits, rows, regex, deadline), deadline)
            except SearchStopped:
                stopped = True
                break
            for (seq, message, lines), hits in zip(rows, found, strict=True):
                prefix = f"#{seq} {message.role}"
                # grep_result's window over the message's lines (its label line never shows).
                window = ContextWindow(context)
                marked = set(hits)
                # Without context only the matching lines can show: the others need not be fed.
                for j in range(1, len(lines)) if window.context else hits:
                    match = j in marked
                    if match:
                        if matches >= max_matches:  # one more exists: say so
                            truncated = True
                            break
                        matches += 1
                    for _, line, is_match in window.feed(j, lines[j], match):
                        text = f"{prefix}{':' if is_match else '-'} {line}"
                        used += len(text.encode()) + 1
                        if used > max_bytes:
                            truncated = True
                            break
                        out.append(text)
                    if truncated:
                        break
                if truncated:
                    break
            if truncated:
                break
        if stopped and not out:
            return f"[no match of {pattern!r} in {span.handle} before the {stopped_message(deadline.budget)}]"
        if not out:
            return f"[no message in {span.handle} matches {pattern!r}]"
        header = f"[grep {pattern!r} in {span.handle} (messages {span.first}-{span.last}): {matches} matching lines]"
        lines = [header, *out]
        if truncated:
            lines.append(
                f'[more matches exist: narrow the pattern, or read_result(ref_id="{span.handle}", offset=…)]'
            )
        if stopped:
            lines.append(f"[{stopped_message(deadline.budget)}]")
        return "\n".join(lines)

    async def recall(
        self,
        query: Queries,
        project: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
        asking: str | None = None,
    ) -> list[MessageHit]:
        """Transcript messages ranked by BM25 for `query` (of one project or session when given).
        `asking` is the session searching: its current turn (the question itself, the calls made
        for it) is what the model is looking at, so it is left out."""
        match, loose = fts_match(query, "deploy code")
        limit = max(1, min(limit, 100))
        skip = await self._current_turn(asking) if asking is not None else None
        ranked = await self._ranked(match, project, session_id, limit, skip)
        if not ranked and loose is not None:  # no message has every term: settle for any of them
            match = loose
            ranked = await self._ranked(match, project, session_id, limit, skip)
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = await self.db.fetchall(
            "SELECT f.rowid, m.session_id, s.project, m.seq, m.role, m.created, "
            "snippet(message_fts, 0, '', '', '…', 16) FROM message_fts f "
            "JOIN messages m ON m.id = f.rowid JOIN sessions s ON s.id = m.session_id "
            f"WHERE message_fts MATCH ? AND f.rowid IN ({marks})",
            (match, *(rowid for rowid, _ in ranked)),
        )
        found = {row[0]: row[1:] for row in rows}  # a message deleted meanwhile is left out
        hits: list[MessageHit] = []
        for rowid, rank in ranked:
            if rowid in found:
                owner, where, seq, role, created, snippet = found[rowid]
                hits.append(
                    MessageHit(
                        owner, where, seq, role, " ".join((snippet or "").split()), -float(rank), created
                    )
                )
        return await link_outputs(self.db, hits)

    async def _current_turn(self, session_id: str) -> tuple[str, int] | None:
        row = await self.db.fetchone(
            "SELECT max(seq) FROM messages WHERE session_id = ? AND role = 'user' AND kind = 'chat'",
            (session_id,),
        )
        return (session_id, int(row[0])) if row and row[0] is not None else None

    async def _ranked(
        self,
        match: str,
        project: str | None,
        session_id: str | None,
        limit: int,
        skip: tuple[str, int] | None = None,
    ) -> list[tuple[int, float]]:
        where: list[str] = ["message_fts MATCH ?"]
        params: list[object] = [match]
        joins = ""
        if skip is not None:
            where.append("NOT (m.session_id = ? AND m.seq >= ?)")
            params.extend(skip)
        if project is not None or session_id is not None or skip is not None:
            joins = " JOIN messages m ON m.id = f.rowid"
            if project is not None:
                joins += " JOIN sessions s ON s.id = m.session_id"
                where.append("s.project = ?")
                params.append(project)
            if session_id is not None:
                where.append("m.session_id = ?")
                params.append(session_id)
        rows = await self.db.fetchall(
            f"SELECT f.rowid, f.rank FROM message_fts f{joins} WHERE {' AND '.join(where)} "
            "ORDER BY f.rank LIMIT ?",
            (*params, limit),
        )
        return [(int(r[0]), float(r[1])) for r in rows]

    async def render(self, session_id: str, max_line_length: int = 2000) -> tuple[list[str], dict[int, int]]:
        """A whole transcript as the lines a range read shows, and the line (1-based) where
        each message starts: what the blob browser's conversation view scrolls through."""
        lines: list[str] = []
        starts: dict[int, int] = {}
        rows = await self.db.fetchall(
            "SELECT seq, json FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        for seq, text in rows:
            starts[seq] = len(lines) + 1
            lines.extend(render_message(seq, Message.loads(text), max_line_length))
        return lines, starts

    async def keys(self, session_id: str) -> list[tuple[int, str, str | None, str | None]]:
        """(seq, message id, tool_call_id, first tool call's id) of every transcript message:
        what compaction needs to tell which messages of a history it replaced, even after tool
        outputs were trimmed (a trimmed copy has a new id but answers the same call)."""
        rows = await self.db.fetchall(
            "SELECT seq, message_id, json_extract(json, '$.tool_call_id'), "
            "json_extract(json, '$.tool_calls[0].id') FROM messages WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        return [(int(r[0]), str(r[1]), r[2], r[3]) for r in rows]


def is_range(text: object) -> bool:
    """True when `text` names a transcript range (so the range reader, not the blob reader, runs)."""
    if not isinstance(text, str):
        return False
    try:
        return parse_ref(text).is_range
    except StoreError:
        return False


def _hits(rows: list[tuple[int, Message, list[str]]], regex: Pattern, deadline: Deadline) -> list[list[int]]:
    """For each rendered message, the indexes of its matching lines (never the label line)."""
    return [[i for i in range(1, len(lines)) if deadline.search(regex, lines[i])] for _, _, lines in rows]
