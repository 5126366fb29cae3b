"""Schema migrations: an ordered list of named functions, applied on open.

`PRAGMA user_version` holds how many have run. Each runs in its own transaction, which re-reads
the version first so two processes opening a fresh file at once do not both apply it. A file
whose version is past the list was written by a newer agent-tui: `NewerSchema`, never a guess.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiosqlite

from agent_tui.store.conversation_index import ConversationIndex
from agent_tui.store.errors import NewerSchema

log = logging.getLogger(__name__)

APPLICATION_ID = 0x41475455
"""`PRAGMA application_id` of agent-tui databases ('AGTU'): tells ours from other SQLite files."""

_INITIAL = [
    """CREATE TABLE IF NOT EXISTS migrations (
        name TEXT PRIMARY KEY, applied REAL NOT NULL)""",
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT,
        project TEXT NOT NULL,
        model TEXT,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        message_count INTEGER NOT NULL DEFAULT 0,
        tokens INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX sessions_by_project ON sessions(project, updated)",
    "CREATE INDEX sessions_by_updated ON sessions(updated)",
    # The transcript is append-only: audit and export rely on it never changing.
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message_id TEXT NOT NULL,
        role TEXT NOT NULL,
        kind TEXT NOT NULL,
        json TEXT NOT NULL,
        tokens INTEGER,
        created REAL NOT NULL,
        UNIQUE (session_id, seq))""",
    """CREATE TRIGGER messages_append_only BEFORE UPDATE ON messages
        BEGIN SELECT RAISE(ABORT, 'the transcript is append-only'); END""",
    """CREATE TABLE session_snapshots (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        messages TEXT NOT NULL,
        token_count INTEGER NOT NULL,
        through_seq INTEGER NOT NULL,
        created REAL NOT NULL)""",
    "CREATE INDEX snapshots_by_session ON session_snapshots(session_id, id)",
    """CREATE TABLE tool_result_blobs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tool_name TEXT NOT NULL,
        tool_call_id TEXT,
        byte_size INTEGER NOT NULL DEFAULT 0,
        line_count INTEGER NOT NULL DEFAULT 0,
        first_line TEXT NOT NULL DEFAULT '',
        complete INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        last_accessed REAL,
        access_count INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX blobs_by_session ON tool_result_blobs(session_id, created)",
    "CREATE INDEX blobs_by_created ON tool_result_blobs(created)",
    # indexed: 0 = waiting for the FTS indexer, 1 = in the index, NULL = never (binary or past
    # the first 16 MB), -1 = indexing failed (logged).
    """CREATE TABLE blob_chunks (
        id INTEGER PRIMARY KEY,
        blob_id TEXT NOT NULL REFERENCES tool_result_blobs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        first_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        start_byte INTEGER NOT NULL,
        raw_size INTEGER NOT NULL,
        codec INTEGER NOT NULL,
        indexed INTEGER,
        data BLOB NOT NULL,
        UNIQUE (blob_id, seq))""",
    "CREATE INDEX chunks_by_end_line ON blob_chunks(blob_id, end_line, seq)",
    "CREATE INDEX chunks_to_index ON blob_chunks(id) WHERE indexed = 0",
    # External-content FTS5 over the chunks' text: the index holds no second copy of the text;
    # snippets decompress the matching chunk through the view.
    """CREATE VIEW blob_text AS
        SELECT id, agent_tui_text(codec, data) AS text FROM blob_chunks WHERE indexed = 1""",
    """CREATE VIRTUAL TABLE blob_fts USING fts5(
        text, content='blob_text', content_rowid='id', tokenize='unicode61')""",
    # Every way a chunk disappears (GC, session delete cascading) takes it out of the index.
    """CREATE TRIGGER blob_chunks_unindex AFTER DELETE ON blob_chunks WHEN old.indexed = 1
        BEGIN
            INSERT INTO blob_fts(blob_fts, rowid, text)
            VALUES ('delete', old.id, agent_tui_text(old.codec, old.data));
        END""",
]


async def initial_schema(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    for statement in _INITIAL:
        await conn.execute(statement)


async def file_checkpoints(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """What write_file/edit_file replaced, per turn, so /undo can put it back."""
    await conn.execute("""CREATE TABLE file_checkpoints (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        turn_seq INTEGER NOT NULL,
        path TEXT NOT NULL,
        before_ref TEXT,
        after_sha TEXT NOT NULL,
        created REAL NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0)""")
    await conn.execute("CREATE INDEX file_checkpoints_turn ON file_checkpoints(session_id, turn_seq)")


async def session_cost(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """What each session's replies cost; once any reply's price is unknown, so is the total."""
    await conn.execute("ALTER TABLE sessions ADD COLUMN cost REAL NOT NULL DEFAULT 0")
    await conn.execute("ALTER TABLE sessions ADD COLUMN cost_unknown INTEGER NOT NULL DEFAULT 0")


async def transcript_recall(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """Recall over the conversation: user and assistant text and tool-call arguments of every
    transcript, indexed as messages are appended (and here, for the sessions already saved)."""
    # A content-bearing FTS table: chat text is small beside the outputs, and snippets then need
    # no JSON decoding. rowid = messages.id.
    await conn.execute("CREATE VIRTUAL TABLE message_fts USING fts5(text, tokenize='unicode61')")
    await conn.execute(
        """CREATE TRIGGER messages_unindex AFTER DELETE ON messages
        BEGIN DELETE FROM message_fts WHERE rowid = old.id; END"""
    )
    await index.reindex_all(conn)


async def session_leases(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """Which process has a session open, so a second one cannot write into it (store/leases.py)."""
    await conn.execute("""CREATE TABLE session_leases (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        acquired REAL NOT NULL)""")


async def session_parents(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """A sub-agent's session names the session whose `task` call started it (agent/subagents.py),
    so listings show the tree and recall searches a parent's children with it."""
    await conn.execute("ALTER TABLE sessions ADD COLUMN parent_session_id TEXT")
    await conn.execute("CREATE INDEX sessions_by_parent ON sessions(parent_session_id)")


async def recall_stemming(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """Recall matches inflections (`deploying` finds `deployed`): both full-text indexes use the
    porter stemmer. The conversation's is rebuilt here (its text is small); the outputs' chunks
    are marked for the background indexer, which rebuilds theirs after the open."""
    await conn.execute("DROP TABLE message_fts")
    await conn.execute("CREATE VIRTUAL TABLE message_fts USING fts5(text, tokenize='porter unicode61')")
    await index.reindex_all(conn)
    await conn.execute("DROP TABLE blob_fts")
    await conn.execute(
        """CREATE VIRTUAL TABLE blob_fts USING fts5(
        text, content='blob_text', content_rowid='id', tokenize='porter unicode61')"""
    )
    await conn.execute("UPDATE blob_chunks SET indexed = 0 WHERE indexed = 1")


async def background_commands(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """Background commands per session, so a resumed session is told which ended with the last
    process (store/background_log.py)."""
    await conn.execute("""CREATE TABLE background_commands (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        shell_id TEXT NOT NULL,
        command TEXT NOT NULL,
        ref TEXT,
        started REAL NOT NULL,
        ended REAL,
        state TEXT NOT NULL,
        exit_code INTEGER,
        told INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, shell_id))""")


async def forked_from(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """Which session (and which message of it) a fork continues (store/forks.py)."""
    await conn.execute("ALTER TABLE sessions ADD COLUMN forked_from TEXT")
    await conn.execute("ALTER TABLE sessions ADD COLUMN forked_at INTEGER")


async def side_state(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """The task list, the pins and the compaction records, kept beside the conversation
    (store/side_state.py). `IF NOT
    EXISTS`: a test re-runs the migrations from recall_stemming on on an older file."""
    await conn.execute("""CREATE TABLE IF NOT EXISTS side_state (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        todos TEXT NOT NULL DEFAULT '[]',
        pins TEXT NOT NULL DEFAULT '[]',
        mode TEXT NOT NULL DEFAULT 'default',
        updated REAL NOT NULL)""")
    await conn.execute("""CREATE TABLE IF NOT EXISTS compaction_records (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created REAL NOT NULL,
        record TEXT NOT NULL)""")


async def session_calibration(conn: aiosqlite.Connection, index: ConversationIndex) -> None:
    """What the session learned of its provider's tokenizer (agent/window.py), so a resumed
    session measures its own history as the provider counts it from the first figure. Checked
    first: a test re-runs the migrations from recall_stemming on on an older file."""
    async with conn.execute("PRAGMA table_info(sessions)") as cur:
        columns = {row[1] for row in await cur.fetchall()}
    if "calibration" not in columns:
        await conn.execute("ALTER TABLE sessions ADD COLUMN calibration TEXT")


Migration = tuple[str, Callable[[aiosqlite.Connection, ConversationIndex], Awaitable[None]]]
"""A step's name and what it does; the conversation index is what a step that (re)builds recall's
index fills it by (which calls it leaves out comes from the opener)."""
MIGRATIONS: list[Migration] = [
    ("initial_schema", initial_schema),
    ("file_checkpoints", file_checkpoints),
    ("session_cost", session_cost),
    ("transcript_recall", transcript_recall),
    ("session_leases", session_leases),
    ("session_parents", session_parents),
    ("background_commands", background_commands),
    ("forked_from", forked_from),
    ("recall_stemming", recall_stemming),  # a test re-runs the list from here on an older file
    ("side_state", side_state),
    ("session_calibration", session_calibration),
]


async def user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


def check_version(version: int, path: Path) -> None:
    if version > len(MIGRATIONS):
        raise NewerSchema(
            f"{path} was written by a newer agent-tui (schema {version}, this one knows "
            f"{len(MIGRATIONS)}); upgrade agent-tui or pass --db with another file"
        )


async def migrate(conn: aiosqlite.Connection, path: Path, index: ConversationIndex) -> int:
    """Apply the migrations this file lacks; return the resulting schema version."""
    check_version(await user_version(conn), path)
    while True:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            version = await user_version(conn)
            check_version(version, path)
            if version == len(MIGRATIONS):
                await conn.execute("COMMIT")
                return version
            name, apply = MIGRATIONS[version]
            await apply(conn, index)
            await conn.execute("INSERT OR REPLACE INTO migrations VALUES (?, ?)", (name, time.time()))
            await conn.execute(f"PRAGMA user_version = {version + 1}")
            await conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            await conn.execute("COMMIT")
            log.info("applied migration %s to %s", name, path)
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
