"""SessionStore: sessions, their append-only transcript, and compaction snapshots.

The transcript keeps every message ever sent, in order, for audit and export. What the model
sees after compactions is the newest snapshot; resuming loads that snapshot plus every message
appended after the sequence it covers, so a crash between a compaction and the next append loses
nothing (and a session never compacted resumes from its whole transcript).
"""

from __future__ import annotations

import builtins
import json
import logging
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from agent_tui.base.messages import Message
from agent_tui.base.titles import title_from
from agent_tui.store.conversation_index import ConversationIndex
from agent_tui.store.db import Database
from agent_tui.store.errors import SessionNotFound, StoreError
from agent_tui.store.models import SessionInfo
from agent_tui.store.recall import Indexer
from agent_tui.store.refs import new_session_id
from agent_tui.store.spool import Spool
from agent_tui.store.transfer import export_session, import_session

log = logging.getLogger(__name__)

_COLUMNS = "id, title, project, model, created, updated, message_count, tokens"
_SELECT = _COLUMNS + ", CASE WHEN cost_unknown THEN NULL ELSE cost END, parent_session_id, forked_from"


class SessionStore:
    """Sessions of every project in one database."""

    def __init__(
        self,
        db: Database,
        indexer: Indexer | None = None,
        spool: Spool | None = None,
        index: ConversationIndex | None = None,
    ) -> None:
        self.db = db
        self._indexer = indexer
        self._spool = spool
        """Outputs whose chunks are still being written: an export waits for them."""
        self._index = index or ConversationIndex()
        """What recall indexes of each appended or imported message."""

    async def create(
        self, project: str | Path, model: str | None, title: str | None = None, parent_id: str | None = None
    ) -> SessionInfo:
        """A new empty session; `parent_id` makes it a sub-agent's session of that one."""
        now = time.time()
        info = SessionInfo(new_session_id(), title, str(project), model, now, now, parent_id=parent_id)
        async with self.db.write() as conn:
            await conn.execute(
                f"INSERT INTO sessions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, 0, 0)",
                (info.id, info.title, info.project, info.model, now, now),
            )
            if parent_id is not None:
                await conn.execute(
                    "UPDATE sessions SET parent_session_id = ? WHERE id = ?", (parent_id, info.id)
                )
        return info

    async def children(self, session_id: str) -> builtins.list[SessionInfo]:
        """The sub-agent sessions `session_id` started, oldest first (not their children)."""
        rows = await self.db.fetchall(
            f"SELECT {_SELECT} FROM sessions WHERE parent_session_id = ? ORDER BY created, rowid",
            (session_id,),
        )
        return [SessionInfo(*row) for row in rows]

    async def descendants(self, session_id: str) -> builtins.list[str]:
        """Ids of every session below `session_id` in the sub-agent tree (children, theirs…)."""
        rows = await self.db.fetchall(
            "WITH RECURSIVE tree(id) AS (SELECT id FROM sessions WHERE parent_session_id = ? "
            "UNION SELECT s.id FROM sessions s JOIN tree t ON s.parent_session_id = t.id) "
            "SELECT id FROM tree",
            (session_id,),
        )
        return [str(r[0]) for r in rows]

    async def get(self, session_id: str) -> SessionInfo:
        row = await self.db.fetchone(f"SELECT {_SELECT} FROM sessions WHERE id = ?", (session_id,))
        if row is None:
            raise SessionNotFound(f"no session {session_id}; `agent-tui sessions list` shows the saved ones")
        return SessionInfo(*row)

    async def find(self, prefix: str) -> SessionInfo:
        """The one session whose id starts with `prefix` (for the CLI's short ids)."""
        rows = await self.db.fetchall(
            f"SELECT {_SELECT} FROM sessions WHERE id >= ? AND id < ? LIMIT 2",
            (prefix, prefix + "\U0010ffff"),
        )
        if len(rows) == 1:
            return SessionInfo(*rows[0])
        if rows:
            raise StoreError(f"{prefix!r} matches several sessions; give more of the id")
        raise SessionNotFound(
            f"no session id starts with {prefix!r}; `agent-tui sessions list` shows the saved ones"
        )

    async def list(self, project: str | Path | None = None, limit: int | None = None) -> list[SessionInfo]:
        """Sessions, most recently updated first (of one project when given)."""
        sql = f"SELECT {_SELECT} FROM sessions"
        params: list[object] = []
        if project is not None:
            sql += " WHERE project = ?"
            params.append(str(project))
        sql += " ORDER BY updated DESC, rowid DESC LIMIT ?"
        params.append(-1 if limit is None else limit)
        return [SessionInfo(*row) for row in await self.db.fetchall(sql, params)]

    async def newest(self, project: str | Path, *, with_messages: bool = False) -> SessionInfo | None:
        """The most recently updated session of `project`; `with_messages`: skipping empty ones
        (what `-c` continues: every TUI launch stores a session, /resume hides the empty ones)."""
        if with_messages:
            return next((s for s in await self.list(project) if s.message_count), None)
        found = await self.list(project, limit=1)
        return found[0] if found else None

    async def append(
        self,
        session_id: str,
        messages: Sequence[Message],
        tokens: Sequence[int | None] | None = None,
        seqs: Sequence[int] | None = None,
    ) -> builtins.list[int]:
        """Add messages to the end of the transcript; return their sequence numbers. `seqs`
        keeps given numbers, rising and past the last (a fork keeps its source's numbering)."""
        if tokens is not None and len(tokens) != len(messages):
            raise ValueError("tokens must give one count (or None) per message")
        if seqs is not None and len(seqs) != len(messages):
            raise ValueError("seqs must give one number per message")
        if not messages:
            return []
        counts = list(tokens) if tokens is not None else [None] * len(messages)
        now = time.time()
        rows = [m.dumps() for m in messages]  # serialised here: the thread's trip stays short
        index = self._index

        def append_rows(conn: sqlite3.Connection) -> list[int]:
            row = conn.execute(
                "SELECT title, (SELECT coalesce(max(seq), 0) FROM messages "
                "WHERE session_id = ?) FROM sessions WHERE id = ?",
                (session_id, session_id),
            ).fetchone()
            if row is None:
                raise SessionNotFound(f"no session {session_id} to append to")
            title, last = row
            numbers = list(range(last + 1, last + 1 + len(messages))) if seqs is None else list(seqs)
            if numbers != sorted(set(numbers)) or numbers[0] <= last:
                raise StoreError(f"message numbers {numbers} do not follow {last} in {session_id}")
            conn.executemany(
                "INSERT INTO messages (session_id, seq, message_id, role, kind, json, tokens, "
                "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (session_id, seq, m.id, m.role, m.kind, text, n, now)
                    for seq, m, text, n in zip(numbers, messages, rows, counts, strict=False)
                ],
            )
            # Searchable by recall from the moment it is stored, in the same transaction.
            if entries := index.entries(session_id, zip(numbers, messages, strict=True)):
                conn.executemany(index.INSERT_SQL, entries)
            conn.execute(
                "UPDATE sessions SET updated = ?, message_count = message_count + ?, "
                "tokens = tokens + ?, title = coalesce(title, ?) WHERE id = ?",
                (
                    now,
                    len(messages),
                    sum(n or 0 for n in counts),
                    None if title else title_from(messages),
                    session_id,
                ),
            )
            return numbers

        return await self.db.transact(append_rows)  # one trip: it is on every step's path

    async def transcript(self, session_id: str, after_seq: int = 0) -> builtins.list[Message]:
        """Every message (after `after_seq`), in order."""
        await self.get(session_id)
        rows = await self.db.fetchall(
            "SELECT json FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq", (session_id, after_seq)
        )
        return [Message.loads(text) for (text,) in rows]

    async def latest_prompts(self, session_ids: Sequence[str]) -> dict[str, str]:
        """Each session's newest typed request, first line (the picker tells apart sessions
        that began alike)."""
        if not session_ids:
            return {}
        marks = ", ".join("?" * len(session_ids))
        rows = await self.db.fetchall(
            "SELECT m.session_id, m.json FROM messages m JOIN (SELECT session_id, MAX(seq) AS seq "
            f"FROM messages WHERE role = 'user' AND kind = 'chat' AND session_id IN ({marks}) "
            "GROUP BY session_id) newest ON m.session_id = newest.session_id AND m.seq = newest.seq",
            tuple(session_ids),
        )
        return {sid: title for sid, text in rows if (title := title_from([Message.loads(text)]))}

    async def times(self, session_id: str) -> builtins.list[float]:
        """When each message of the transcript was stored, in transcript order."""
        rows = await self.db.fetchall(
            "SELECT created FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [float(created) for (created,) in rows]

    async def numbered(self, session_id: str) -> builtins.list[tuple[int, Message]]:
        """Every message with its transcript number (a fork's numbers skip a discarded branch)."""
        await self.get(session_id)
        rows = await self.db.fetchall(
            "SELECT seq, json FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [(seq, Message.loads(text)) for seq, text in rows]

    async def last_sequence(self, session_id: str) -> int:
        await self.get(session_id)
        row = await self.db.fetchone(
            "SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = ?", (session_id,)
        )
        return int(row[0])

    async def save_snapshot(
        self, session_id: str, messages: Sequence[Message], token_count: int, through_seq: int
    ) -> int:
        """Record the compacted history, covering the transcript up to `through_seq`."""
        text = json.dumps([m.to_json() for m in messages], ensure_ascii=False, separators=(",", ":"))
        async with self.db.write() as conn:
            async with conn.execute(
                "SELECT (SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = ?) "
                "FROM sessions WHERE id = ?",
                (session_id, session_id),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                raise SessionNotFound(f"no session {session_id} to snapshot")
            if not 0 <= through_seq <= row[0]:
                raise StoreError(
                    f"snapshot covers sequence {through_seq}, but session {session_id} has {row[0]} messages"
                )
            now = time.time()
            async with conn.execute(
                "INSERT INTO session_snapshots (session_id, messages, token_count, "
                "through_seq, created) VALUES (?, ?, ?, ?, ?)",
                (session_id, text, token_count, through_seq, now),
            ) as cur:
                snapshot_id = cur.lastrowid
            await conn.execute("UPDATE sessions SET updated = ? WHERE id = ?", (now, session_id))
        assert snapshot_id is not None  # an INSERT always sets it
        return snapshot_id

    async def load_for_resume(self, session_id: str) -> builtins.list[Message]:
        """Newest snapshot + the transcript after it; the whole transcript without one."""
        await self.get(session_id)
        row = await self.db.fetchone(
            "SELECT messages, through_seq FROM session_snapshots WHERE session_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (session_id,),
        )
        if row is None:
            return await self.transcript(session_id)
        try:
            snapshot = [Message.from_json(item) for item in json.loads(row[0])]
        except (ValueError, KeyError, TypeError):
            log.warning("snapshot of %s is unreadable; resuming from the transcript", session_id)
            return await self.transcript(session_id)
        return snapshot + await self.transcript(session_id, after_seq=row[1])

    async def user_sequences(self, session_id: str) -> dict[str, int]:
        """Transcript number of each user message, by message id (where a rewind goes back to)."""
        rows = await self.db.fetchall(
            "SELECT message_id, seq FROM messages WHERE session_id = ? AND role = 'user'", (session_id,)
        )
        return {message_id: seq for message_id, seq in rows}

    async def add_cost(self, session_id: str, cost: float | None) -> None:
        """Add one reply's cost; None (an unknown price) makes the session's total unknown."""
        async with self.db.write() as conn:
            await conn.execute(
                "UPDATE sessions SET cost = cost + ?, cost_unknown = max(cost_unknown, ?) WHERE id = ?",
                (cost or 0.0, 1 if cost is None else 0, session_id),
            )

    async def calibration(self, session_id: str) -> dict[str, object] | None:
        """What `keep_calibration` saved for the session (model and ratio), if anything."""
        row = await self.db.fetchone("SELECT calibration FROM sessions WHERE id = ?", (session_id,))
        try:
            value = json.loads(row[0]) if row and row[0] else None
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    async def keep_calibration(self, session_id: str, calibration: dict[str, object]) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                "UPDATE sessions SET calibration = ? WHERE id = ?", (json.dumps(calibration), session_id)
            )

    async def rename(self, session_id: str, title: str) -> None:
        async with self.db.write() as conn:
            cur = await conn.execute(
                "UPDATE sessions SET title = ?, updated = ? WHERE id = ?", (title, time.time(), session_id)
            )
            if cur.rowcount == 0:
                raise SessionNotFound(f"no session {session_id} to rename")

    async def delete(self, session_id: str) -> None:
        """Delete the session with its transcript, snapshots and stored outputs."""
        async with self.db.write() as conn:
            cur = await conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            if cur.rowcount == 0:
                raise SessionNotFound(f"no session {session_id} to delete")

    async def export(self, session_id: str, path: Path) -> Path:
        """Write the session, its transcript, snapshots and outputs to one JSON file."""
        if self._spool is not None:
            await self._spool.wait()
        return await export_session(self.db, await self.get(session_id), Path(path))

    async def import_(self, path: Path) -> SessionInfo:
        """Load a file written by `export` (ids kept, so refs in it still resolve)."""
        session_id = await import_session(self.db, Path(path), self._index)
        if self._indexer is not None:
            self._indexer.kick()
        return await self.get(session_id)
