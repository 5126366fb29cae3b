"""The conversation's full-text index: what of each transcript message `recall` searches.

Filled as messages are appended (inside the append's transaction) and, once, by the migration
that created it for the sessions already stored. Kept apart from the range reader
(`conversation.py`): this is what goes into `message_fts`, that is how ranges come out.

Which calls are left out is not known here: the store sits below the tools, so whoever opens it
(the composition root, the `sessions` command) says which tools only look things up, from the
tools' declarations (`Capabilities.reads_session`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import aiosqlite

from agent_tui.base.messages import Message

INDEXED_KINDS = ("chat", "attachment")
"""What recall searches: what the user typed or pasted and what the assistant wrote, not the
notes agent-tui adds."""


def _nothing_skipped() -> frozenset[str]:
    return frozenset()


@dataclass(frozen=True)
class ConversationIndex:
    """What recall indexes of a message, given the calls to leave out."""

    lookups: Callable[[], frozenset[str]] = field(default=_nothing_skipped)
    """The tools whose calls only repeat a search (their arguments would make every later recall
    find its own earlier queries). A callable, read once on the first message indexed: finding
    them means loading the tools, which most openings (a listing, a search) never need."""

    @functools.cached_property
    def skipped(self) -> frozenset[str]:
        return self.lookups()

    def message_text(self, message: Message) -> str:
        """User/assistant text and each tool call's name and arguments (lookups' left out);
        empty for tool results (their outputs are indexed as outputs) and notes."""
        if message.role not in ("user", "assistant") or message.kind not in INDEXED_KINDS:
            return ""
        parts = [message.content or ""]
        if message.tool_calls:
            skipped = self.skipped
            parts.extend(f"{c.name} {c.arguments}" for c in message.tool_calls if c.name not in skipped)
        return "\n".join(p for p in parts if p.strip())

    def entries(self, session_id: str, rows: Iterable[tuple[int, Message]]) -> list[tuple[str, str, int]]:
        """What `INSERT_SQL` takes for appended messages (seq, message): those with text to find."""
        return [(text, session_id, seq) for seq, m in rows if (text := self.message_text(m))]

    INSERT_SQL = (
        "INSERT INTO message_fts (rowid, text) SELECT id, ? FROM messages WHERE session_id = ? AND seq = ?"
    )
    """Index stored messages by their (text, session, seq), inside the caller's transaction."""

    async def add(
        self, conn: aiosqlite.Connection, session_id: str, rows: Iterable[tuple[int, Message]]
    ) -> None:
        """Add appended messages (seq, message) to the recall index, inside the caller's transaction."""
        if texts := self.entries(session_id, rows):
            await conn.executemany(self.INSERT_SQL, texts)

    async def reindex_all(self, conn: aiosqlite.Connection) -> int:
        """Index every existing transcript message (the migration); returns how many were indexed."""
        done, last = 0, 0
        while True:
            async with conn.execute(
                "SELECT id, json FROM messages WHERE id > ? AND role IN ('user', 'assistant') ORDER BY id LIMIT 2000",
                (last,),
            ) as cur:
                rows = list(await cur.fetchall())
            if not rows:
                return done
            last = rows[-1][0]
            batch = []
            for rowid, text in rows:
                try:
                    body = self.message_text(Message.from_json(json.loads(text)))
                except (ValueError, KeyError, TypeError):
                    continue  # an unreadable row stays readable as JSON, just not searchable
                if body:
                    batch.append((rowid, body))
            await conn.executemany("INSERT INTO message_fts (rowid, text) VALUES (?, ?)", batch)
            done += len(batch)
