"""Forking a session: a new session that continues a copy of another's conversation.

A fork is a branch of the append-only transcript, never an edit of it: the source keeps every
message; the fork gets copies of the messages before the chosen one (all of them by default) and
the newest snapshot that covers no more than those, so it resumes exactly as the source would
have at that point. Only the live branch is copied: a branch a rewind discarded (and the rewind's
note) stays in the source, readable there by its range, and a message inside such a branch is
refused as a fork point. Copies keep their source's message numbers, so a range a summary names
(`m_12-30`) reads the same messages in the fork, and `sessions show` numbers agree.

The fork's row names its source (`forked_from`, `forked_at`), which the session lists show.
Outputs stay with the session that stored them; a fork reads its source's refs as its own
(ResultStore.resolve follows `forked_from`).
"""

from __future__ import annotations

import json

from agent_tui.base.messages import Message
from agent_tui.store.branches import discarded_branches
from agent_tui.store.db import Database
from agent_tui.store.errors import StoreError
from agent_tui.store.models import SessionInfo
from agent_tui.store.sessions import SessionStore
from agent_tui.store.side_state import SideStore

MAX_DEPTH = 32
"""Forks of forks followed when a ref is resolved (a cycle cannot exist; this bounds the walk)."""


async def fork_session(
    sessions: SessionStore, source_id: str, at: int | None = None, title: str | None = None
) -> SessionInfo:
    """A new session holding `source_id`'s live messages 1…at-1 (all when `at` is None)."""
    db = sessions.db
    source = await sessions.get(source_id)
    last = await sessions.last_sequence(source_id)
    if at is not None and not 1 <= at <= last + 1:
        raise StoreError(
            f"the fork point must be a message number from 1 to {last + 1} ({source_id} has {last} messages)"
        )
    through = last if at is None else at - 1
    branches = await discarded_branches(db, source_id)
    for branch in branches:
        if at is not None and branch.first < at <= branch.note:
            raise StoreError(
                f"message {at} of {source_id} is on a branch a rewind discarded ({branch.ref}); fork "
                f"from before a message of the live branch, or read that one with read_result {branch.ref}"
            )
    # A rewind whose note is not copied had not happened yet at the fork point.
    gone = [b for b in branches if b.note <= through]
    rows = [
        (seq, text, tokens)
        for seq, text, tokens in await db.fetchall(
            "SELECT seq, json, tokens FROM messages WHERE session_id = ? AND seq <= ? ORDER BY seq",
            (source_id, through),
        )
        if not any(b.holds(seq) or b.note == seq for b in gone)
    ]
    snapshot = await db.fetchone(
        "SELECT messages, token_count, through_seq FROM session_snapshots WHERE session_id = ? "
        "AND through_seq <= ? ORDER BY id DESC LIMIT 1",
        (source_id, through),
    )
    name = title or f"{source.title or 'untitled'} (fork)"
    info = await sessions.create(source.project, source.model, title=name)
    async with db.write() as conn:
        await conn.execute(
            "UPDATE sessions SET forked_from = ?, forked_at = ? WHERE id = ?",
            (source_id, through + 1, info.id),
        )
    if rows:
        await sessions.append(
            info.id,
            [Message.loads(text) for _, text, _ in rows],
            [n for *_, n in rows],
            [s for s, *_ in rows],
        )
    if snapshot is not None:
        messages = [Message.from_json(item) for item in json.loads(snapshot[0])]
        # It may end on a rewind note, which is not copied: it then covers the copies before it.
        covered = max((seq for seq, *_ in rows if seq <= snapshot[2]), default=0)
        await sessions.save_snapshot(info.id, messages, snapshot[1], covered)
    await SideStore(db).copy(source_id, info.id)  # the pins and the task list go with it
    return await sessions.get(info.id)


async def forked_from(db: Database, session_id: str) -> str | None:
    row = await db.fetchone("SELECT forked_from FROM sessions WHERE id = ?", (session_id,))
    return row[0] if row else None


async def ancestors(db: Database, session_id: str) -> list[str]:
    """The sessions `session_id` was forked from, nearest first."""
    out: list[str] = []
    current: str | None = session_id
    while current is not None and len(out) < MAX_DEPTH:
        current = await forked_from(db, current)
        if current is not None:
            out.append(current)
    return out


async def continue_from(db: Database, session_id: str, source_id: str) -> None:
    """Mark `session_id` as continuing `source_id` (a hand-off): its outputs then resolve by
    their short ids from the new session, as a fork's do."""
    last = await db.fetchone("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?", (source_id,))
    async with db.write() as conn:
        await conn.execute(
            "UPDATE sessions SET forked_from = ?, forked_at = ? WHERE id = ?",
            (source_id, int(last[0]) + 1 if last else 1, session_id),
        )
