"""The store read by another program: what `agent-tui mcp serve` answers, without the MCP layer.

Claude Code, Codex or any MCP client can search and read what agent-tui stored — outputs and
transcripts — but never change it: every operation here is a read, with the access statistics left
alone (they are the model's reads, not another agent's), and a scope decides which projects are
visible. The scope is the one wall: a ref of another project is answered as not found, so a client
cannot even learn that it exists, unless the user started the server with every project in view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.context.compaction.ref_labels import extent
from agent_tui.store.conversation import is_range
from agent_tui.store.errors import StoreError

if TYPE_CHECKING:
    from agent_tui.store import Store

MAX_BYTES = 51200
"""What one answer carries at most (a session's read_result limit): pages beyond it on request."""
SOURCES = ("all", "conversation", "outputs")


@dataclass(frozen=True)
class Scope:
    """Which projects a client may see."""

    project: str | None
    """The one project in view (a resolved folder path); None = every project."""

    def allows(self, project: str) -> bool:
        return self.project is None or project == self.project

    def describe(self) -> str:
        return "every project" if self.project is None else f"project {self.project}"


class ArchiveError(Exception):
    """A request the archive cannot answer; its text is for the client's model."""


class Archive:
    """Read-only operations over a store, limited to a scope."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    async def _project_of(self, ref: str) -> str:
        """The project `ref` belongs to; out-of-scope refs read as unknown."""
        try:
            if is_range(ref):
                project = (await self.store.transcript.resolve(ref)).project
            else:
                project = (await self.store.results.resolve(ref)).project
        except StoreError as exc:
            raise ArchiveError(str(exc)) from exc
        if not self.scope.allows(project):
            raise ArchiveError(
                f"no stored output or transcript range {ref!r} in {self.scope.describe()} "
                "(this server was started for one project; `agent-tui mcp serve --all-projects` shows all)"
            )
        return project

    async def read(self, ref: str, offset: int | None = None, limit: int | None = None) -> str:
        """Numbered lines of a stored output, or numbered messages of a transcript range."""
        await self._project_of(ref)
        limit = None if limit is None else max(1, min(limit, 5000))
        try:
            if is_range(ref):
                return await self.store.transcript.read(ref, offset, limit, max_bytes=MAX_BYTES)
            return await self.store.results.read(ref, offset, limit, max_bytes=MAX_BYTES, touch=False)
        except StoreError as exc:
            raise ArchiveError(str(exc)) from exc

    async def grep(self, ref: str, pattern: str, context: int = 0) -> str:
        """Lines of a stored output (or a transcript range) matching a regular expression."""
        await self._project_of(ref)
        context = max(0, min(context, 20))
        try:
            if is_range(ref):
                return await self.store.transcript.grep(ref, pattern, context=context, max_bytes=MAX_BYTES)
            return await self.store.results.grep(ref, pattern, context=context, touch=False)
        except (StoreError, re.error) as exc:
            raise ArchiveError(str(exc)) from exc

    async def recall(self, queries: list[str], source: str = "all", limit: int = 10) -> str:
        """Ranked matches in what was said and what tools returned, within the scope."""
        asked = list(dict.fromkeys(q.strip() for q in queries if q and q.strip()))
        if not asked:
            raise ArchiveError('recall needs words to search for: query="…" or queries=["…", "…"]')
        if source not in SOURCES:
            raise ArchiveError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
        limit = max(1, min(limit, 50))
        query: str | list[str] = asked[0] if len(asked) == 1 else asked
        shown = " | ".join(asked)
        try:
            said = (
                await self.store.transcript.recall(query, project=self.scope.project, limit=limit)
                if source != "outputs"
                else []
            )
            stored = (
                await self.store.results.recall(query, project=self.scope.project, limit=limit)
                if source != "conversation"
                else []
            )
        except StoreError as exc:
            raise ArchiveError(str(exc)) from exc
        said = [hit for hit in said if self.scope.allows(hit.project)]
        stored = [hit for hit in stored if self.scope.allows(hit.project)]
        if not said and not stored:
            return f"Nothing said or stored matches {shown!r} in {self.scope.describe()}."
        lines: list[str] = []
        if said:
            lines.append(f"{len(said)} message(s) match {shown!r} (read_result on a handle shows it whole):")
            for hit in said:
                lines.append(f"- {hit.uri} message #{hit.seq} {hit.role} ({hit.project}): {hit.snippet}")
        if stored:
            lines.append(f"{len(stored)} stored output(s) match {shown!r}:")
            for out in stored:
                made = f", made by {out.call}" if out.call else ""
                snippet = " ".join(str(out.snippet).split())
                size = extent(out.ref.byte_size, out.ref.line_count)
                lines.append(
                    f"- {out.uri} {out.ref.tool_name} ({size}, lines {out.lines[0]}-{out.lines[1]}"
                    f"{made}): {snippet}"
                )
        return "\n".join(lines)

    async def sessions(self, limit: int = 20) -> str:
        """The newest sessions in scope: id, title, size, and the range that reads each one."""
        limit = max(1, min(limit, 200))
        found = await self.store.sessions.list(project=self.scope.project, limit=limit)
        if not found:
            return f"No stored sessions in {self.scope.describe()}."
        lines = [f"{len(found)} session(s) in {self.scope.describe()}, newest first:"]
        for info in found:
            title = " ".join((info.title or "(untitled)").split())[:80]
            where = "" if self.scope.project is not None else f" [{info.project}]"
            read = f" · read_result {info.id}/m_1-{info.message_count}" if info.message_count else ""
            lines.append(f"- {info.id} {title!r}{where} · {info.message_count} messages{read}")
        return "\n".join(lines)
