"""Where a recall hit leads: a call's hit names its output, an output's hit names its call.

Searching `step_003.log` finds the call `bash: cat step_003.log` (its arguments are indexed) but
not its output, whose text never says the file's name; a hit on the output finds the text but not
what was run. Without the other half the model pages through the transcript to connect them.
So each hit is completed here, after ranking, from the transcript: a call hit gets its results'
refs, sizes and first lines, an output hit the message number and words of its call. A few small
indexed queries per hit; the ranking itself is untouched.
"""

from __future__ import annotations

from dataclasses import replace

from agent_tui.base.messages import Message
from agent_tui.context.compaction.ref_labels import call_words, extent
from agent_tui.store.db import Database
from agent_tui.store.models import MessageHit, RecallHit
from agent_tui.store.refs import range_id

FIRST_LINE_CHARS = 100
"""How much of an output's first line a hit quotes."""


def _first_line(text: str | None) -> str:
    line = next((part for part in (text or "").split("\n") if part.strip()), "")
    line = " ".join(line.split())
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


async def _message(db: Database, session_id: str, seq: int) -> Message | None:
    row = await db.fetchone("SELECT json FROM messages WHERE session_id = ? AND seq = ?", (session_id, seq))
    return Message.loads(row[0]) if row else None


async def _output_line(db: Database, seq: int, result: Message) -> str:
    ref = result.output_ref
    if ref is None:
        text = result.content or ""
        lines = text.count("\n") + 1 if text else 0
        return f"output {range_id(seq, seq)} ({lines} line{'s' * (lines != 1)}, not stored) begins: {_first_line(text)}"
    row = await db.fetchone("SELECT first_line FROM tool_result_blobs WHERE id = ?", (ref.id,))
    first = _first_line(row[0]) if row and row[0] else _first_line(result.content)
    return f"output ref={ref.id} ({extent(ref.byte_size, ref.line_count)}) begins: {first}"


async def link_outputs(db: Database, hits: list[MessageHit]) -> list[MessageHit]:
    """Each hit on an assistant message with tool calls, with the refs of its results."""
    out: list[MessageHit] = []
    for hit in hits:
        message = await _message(db, hit.session_id, hit.seq) if hit.role == "assistant" else None
        if message is None or not message.tool_calls:
            out.append(hit)
            continue
        wanted = {c.id for c in message.tool_calls}
        rows = await db.fetchall(
            "SELECT seq, json FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? "
            "AND role = 'tool' ORDER BY seq",
            (hit.session_id, hit.seq, hit.seq + len(wanted) + 2),
        )
        lines = []
        for seq, text in rows:
            result = Message.loads(text)
            if result.tool_call_id in wanted:
                lines.append(await _output_line(db, seq, result))
        out.append(replace(hit, outputs="; ".join(lines)) if lines else hit)
    return out


async def link_calls(db: Database, hits: list[RecallHit]) -> list[RecallHit]:
    """Each output hit, with the message number and words of the call that produced it."""
    out: list[RecallHit] = []
    for hit in hits:
        row = await db.fetchone("SELECT tool_call_id FROM tool_result_blobs WHERE id = ?", (hit.ref.id,))
        call_id = row[0] if row else None
        found = None
        if call_id:
            # The result answers the call in the message just before it; find the result by its
            # call id, then the call (ids are unique within a session).
            found = await db.fetchone(
                "SELECT seq, json FROM messages WHERE session_id = ? AND role = 'assistant' "
                "AND instr(json, ?) > 0 ORDER BY seq DESC LIMIT 1",
                (hit.session_id, f'"{call_id}"'),
            )
        if found is None:
            out.append(hit)
            continue
        seq, text = found
        call = next((c for c in Message.loads(text).tool_calls if c.id == call_id), None)
        if call is None:
            out.append(hit)
            continue
        out.append(replace(hit, call=f"{range_id(seq, seq)} {call_words(call)}"))
    return out
