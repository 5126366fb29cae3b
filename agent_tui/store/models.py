"""The values the store hands out: sessions, blob listings, recall hits, GC reports.

Times are Unix seconds (floats), as stored; the CLI and UI format them.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.base.messages import ResultRef
from agent_tui.store.refs import build_range_uri, build_uri, range_id


@dataclass(frozen=True)
class SessionInfo:
    """One saved session as listed and resumed."""

    id: str
    """Session id (`s_` + 12 hex)."""
    title: str | None
    """Set by `rename`, else taken from the first user message; None until then."""
    project: str
    """Working directory the session ran in."""
    model: str | None
    """Model name the session was created with."""
    created: float
    """Creation time (Unix seconds)."""
    updated: float
    """Last append, snapshot or rename (Unix seconds)."""
    message_count: int = 0
    """Messages in the transcript."""
    tokens: int = 0
    """Sum of the per-message token counts given to `append`."""
    cost: float | None = 0.0
    """USD the session's replies cost; None once any reply's price was unknown."""
    parent_id: str | None = None
    """For a sub-agent's session: the session whose `task` call started it."""
    forked_from: str | None = None
    """The session this one is a fork of (store/forks.py); None for an original."""


@dataclass(frozen=True)
class BlobInfo:
    """One stored tool output, for the blob browser and `blobs list`."""

    ref: ResultRef
    """Id, sizes, tool and owning session."""
    project: str
    """Working directory of the owning session."""
    tool_call_id: str | None
    """The call the output answered."""
    created: float
    """When it was stored (Unix seconds)."""
    last_accessed: float | None
    """Last read / grep / window read; None if never read back."""
    access_count: int
    """How many reads so far."""
    first_line: str
    """The output's first line (at most 200 characters), for listings."""

    @property
    def uri(self) -> str:
        return build_uri(self.project, self.ref.session_id or "", self.ref.id)


@dataclass(frozen=True)
class ResolvedRef:
    """A ref or URI resolved against the database."""

    ref: ResultRef
    """The stored output."""
    project: str
    """Working directory of its session."""
    lines: tuple[int, int] | None = None
    """Line range from a `:L<start>-<end>` suffix, if one was given."""

    @property
    def uri(self) -> str:
        return build_uri(self.project, self.ref.session_id or "", self.ref.id, self.lines)


@dataclass(frozen=True)
class RecallHit:
    """One stored output matching a recall query."""

    ref: ResultRef
    """The matching output."""
    session_id: str
    """Session that produced it."""
    project: str
    """Working directory of that session."""
    snippet: str
    """Text around the best match, quoted as stored (no marks inside it)."""
    score: float
    """BM25 relevance of its best-matching part; higher is better."""
    lines: tuple[int, int]
    """Line range of the stored part the best match lies in (read it with read_result)."""
    call: str = ""
    """The call that produced it (`m_10-10 bash: cat step_003.log`), when the transcript has it."""

    @property
    def uri(self) -> str:
        return build_uri(self.project, self.session_id, self.ref.id, self.lines)


@dataclass(frozen=True)
class MessageHit:
    """One transcript message (user or assistant text, tool-call arguments) matching recall."""

    session_id: str
    """Session whose transcript holds it."""
    project: str
    """Working directory of that session."""
    seq: int
    """Its message number in that transcript (what `m_<a>-<b>` ranges count)."""
    role: str
    """user or assistant."""
    snippet: str
    """Text around the best match, quoted as stored (no marks inside it)."""
    score: float
    """BM25 relevance; higher is better."""
    created: float
    """When it was said (Unix seconds)."""
    outputs: str = ""
    """For a tool call: its results' refs, sizes and first lines (where the hit leads)."""

    @property
    def ref(self) -> str:
        """The in-session short form naming just this message: `m_12-12`."""
        return range_id(self.seq, self.seq)

    @property
    def uri(self) -> str:
        return build_range_uri(self.project, self.session_id, self.seq, self.seq)


@dataclass(frozen=True)
class GcReport:
    """What a garbage collection removed (or would remove, for a dry run)."""

    blobs_removed: int
    """Stored outputs deleted."""
    bytes_removed: int
    """Their total uncompressed size."""
    protected: int
    """Outputs the age or size rule would have removed, kept because a session's current
    context still refers to them."""
    file_bytes_before: int
    """Database file size before (main file + WAL)."""
    file_bytes_after: int
    """Database file size after reclaiming free pages."""
    dry_run: bool = False
    """True when nothing was deleted."""
