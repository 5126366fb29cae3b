"""The store: one SQLite file holding sessions, their transcripts and snapshots, and every tool
output whole, searchable across sessions and projects.

    store = await open_store()            # or open_store(path); default paths.default_db_path()
    session = await store.sessions.create(project=cwd, model="openai/gpt-4o-mini")
    ref = await store.results.offload(session.id, "bash", call.id, output)
    text = await store.results.view(ref, size=4096, max_line_length=2000)
    await store.close()

One connection per Store, shared by every tab; statements are serialised through it.
No Textual, rich or litellm here.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.base.bounded_regex import DEFAULT_BUDGET
from agent_tui.runtime import paths
from agent_tui.store.background_log import BackgroundLog
from agent_tui.store.checkpoints import CheckpointStore
from agent_tui.store.conversation import TranscriptStore
from agent_tui.store.conversation_index import ConversationIndex
from agent_tui.store.db import Database, open_database
from agent_tui.store.errors import (
    BadPattern,
    BadRef,
    CorruptDatabase,
    LineRangeError,
    NewerSchema,
    RefNotFound,
    SessionNotFound,
    StoreError,
)
from agent_tui.store.leases import LeaseStore, SessionBusy
from agent_tui.store.models import BlobInfo, GcReport, MessageHit, RecallHit, ResolvedRef, SessionInfo
from agent_tui.store.recall import START_DELAY
from agent_tui.store.refs import build_uri, parse_ref
from agent_tui.store.results import ResultStore
from agent_tui.store.sessions import SessionStore
from agent_tui.store.side_state import SideStore

log = logging.getLogger(__name__)

__all__ = [
    "BadPattern",
    "BadRef",
    "BlobInfo",
    "ConversationIndex",
    "CorruptDatabase",
    "GcReport",
    "LineRangeError",
    "MessageHit",
    "NewerSchema",
    "RecallHit",
    "RefNotFound",
    "ResolvedRef",
    "ResultStore",
    "SessionInfo",
    "SessionBusy",
    "SessionNotFound",
    "SessionStore",
    "Store",
    "StoreError",
    "StoreSettings",
    "TranscriptStore",
    "build_uri",
    "open_store",
    "parse_ref",
]


@dataclass(frozen=True)
class StoreSettings:
    """What the opener knows that the store cannot: the user's search budget and, from the tools'
    declarations (the store sits below the tools), which calls recall leaves out."""

    search_timeout: float = DEFAULT_BUDGET
    """Seconds one grep over an output or a transcript range may take ([tools] search_timeout)."""
    index: ConversationIndex = field(default_factory=ConversationIndex)


class Store:
    """Sessions and results over one database connection."""

    def __init__(self, db: Database, settings: StoreSettings | None = None) -> None:
        settings = settings or StoreSettings()
        self.db = db
        self.path: Path = db.path
        # Two threads compress chunks while the connection's thread inserts earlier ones.
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-tui-store")
        self.results = ResultStore(db, self._pool, settings.search_timeout)
        self.sessions = SessionStore(db, self.results.indexer, self.results.spool, settings.index)
        self.checkpoints = CheckpointStore(db)
        self.leases = LeaseStore(db)
        self.background = BackgroundLog(db)
        """Background commands per session (told to a resumed session when they were lost)."""
        self.side = SideStore(db)
        """Each session's task list and pins (kept beside the conversation)."""
        self.transcript = TranscriptStore(db, settings.search_timeout)
        """Transcript ranges (`m_12-340`) read and grepped, and recall over the conversation."""
        self._closed = False

    async def close(self) -> None:
        """Stop background indexing (it resumes on the next open) and close the connection."""
        if self._closed:
            return
        self._closed = True
        await self.results.spool.stop()
        await self.results.indexer.stop()
        await self.db.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def open_store(path: str | Path | None = None, settings: StoreSettings | None = None) -> Store:
    """Open the database at `path` (default: the user data dir), creating and migrating it.
    Without `settings` (a test, a tool that only reads): the default budget, every call indexed."""
    settings = settings or StoreSettings()
    db = await open_database(Path(path) if path is not None else paths.default_db_path(), settings.index)
    store = Store(db, settings)
    try:
        await store.results.spool.resume()
        # Whatever an earlier run left unindexed: on the indexer's own connection, at idle.
        store.results.indexer.kick(delay=START_DELAY)
    except BaseException:
        await store.close()
        raise
    return store
