"""The two things /blobs browses: the stored tool outputs and the conversation.

Each is a small object saying how it lists and searches its rows, how the screen's title and
search box describe it, and what a failed listing is logged as; `BlobsScreen` (screens/blobs.py)
holds one and F3 swaps it for the other. Before, one screen switched on a string in each of those
places.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent_tui.frontends.tui.screens.blob_rows import (
    BlobRow,
    Scope,
    Source,
    conversation_rows,
    from_hit,
    from_info,
)

if TYPE_CHECKING:
    from agent_tui.store import Store

LIST_LIMIT = 500
SEARCH_LIMIT = 50


class Browser(Protocol):
    """One kind of rows the blob screen lists."""

    source: Source
    placeholder: str
    """The search box's placeholder."""

    async def rows(
        self, store: Store, query: str, scope: Scope, where: dict[str, str | None]
    ) -> list[BlobRow]:
        """The scope's rows, or what the query finds in it."""

    def title(self, scope_label: str, query: str, count: int) -> str:
        """The screen's title line."""


class OutputsBrowser:
    """The stored tool outputs: the scope's listing, newest first, or recall (BM25) hits."""

    source: Source = "outputs"
    placeholder = "search every stored output (recall, BM25) — Enter"

    def __init__(self) -> None:
        self.known: dict[str, BlobRow] = {}
        """The scope's listing: it gives the hits their ages and read counts."""
        self._known_scope: Scope | None = None

    async def rows(
        self, store: Store, query: str, scope: Scope, where: dict[str, str | None]
    ) -> list[BlobRow]:
        # A search in the same scope reuses the listing rather than listing again.
        if not query.strip() or self._known_scope != scope:
            infos = await store.results.list_blobs(limit=LIST_LIMIT, **where)
            self.known = {info.ref.id: from_info(info) for info in infos}
            self._known_scope = scope
        if not query.strip():
            return list(self.known.values())
        hits = await store.results.recall(query, limit=SEARCH_LIMIT, **where)
        return [from_hit(hit, self.known) for hit in hits]

    def title(self, scope_label: str, query: str, count: int) -> str:
        if query.strip():
            what = f"search: {query.strip()} · {count} hit(s) (recall, BM25)"
        else:
            what = f"{count} stored output(s), newest first"
        return f"Blobs · {scope_label} · {what}"


class ConversationBrowser:
    """What was said: the scope's transcripts, or the messages recall finds (compacted ones too)."""

    source: Source = "conversation"
    placeholder = "search what was said (recall, BM25) — Enter"

    async def rows(
        self, store: Store, query: str, scope: Scope, where: dict[str, str | None]
    ) -> list[BlobRow]:
        return await conversation_rows(store, query, where, LIST_LIMIT, SEARCH_LIMIT)

    def title(self, scope_label: str, query: str, count: int) -> str:
        if query.strip():
            what = f"search: {query.strip()} · {count} message(s) (recall, BM25)"
        else:
            what = f"{count} transcript(s), newest first"
        return f"Conversation · {scope_label} · {what}"
