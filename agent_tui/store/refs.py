"""Ref ids and `ctx://` URIs: how the model names a stored output, here or in another session.

A short id (`r_` + 10 hex) is unique across the whole database, so it resolves by itself; inside
a session it must belong to that session. A transcript range (`m_<a>-<b>`: messages a to b of the
current session, as a compaction note names them) is the short form of
`ctx://<project>/<session>/messages:<a>-<b>`; `s_<session>/m_<a>-<b>` names a range of another
session (a sub-agent's transcript) without its project. A URI names the project and session too, so recall can
point across them: `ctx://<project>/<session>/<ref>[:L<start>-<end>]`. The project is a path, kept
readable (only characters outside the URI-safe set are %-escaped); parsing splits from the right,
so the slashes inside it are harmless.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from urllib.parse import quote, unquote

from agent_tui.store.errors import BadRef

SCHEME = "ctx://"
REF_RE = re.compile(r"\br_[0-9a-f]{10}\b")
"""Finds ref ids inside any text (messages, summaries) — used by GC to see what is still used."""
_REF_ID = re.compile(r"^r_[0-9a-f]{10}$")
_SESSION_ID = re.compile(r"^s_[0-9a-f]{12}$")
_LINES = re.compile(r"^L(\d+)(?:-(\d+))?$")
_RANGE = re.compile(r"^(?:m_|messages:)(\d+)(?:[-–](\d+))?$")
_SESSION_RANGE = re.compile(r"^(s_[0-9a-f]{12})/(.+)$")
"""`s_<12 hex>/m_<a>-<b>`: a range of another session of this database without its project (how a
sub-agent's envelope names the child's transcript in few tokens)."""
RANGE_RE = re.compile(r"\bm_(\d+)-(\d+)\b")
"""Finds transcript ranges (`m_12-340`) inside any text."""
_USAGE = (
    "expected a ref id like r_0123456789, a transcript range like m_12-340, or a URI "
    "ctx://<project>/<session>/<ref>[:L<start>-<end>] or ctx://<project>/<session>/messages:<a>-<b>"
)


def new_ref_id() -> str:
    """A fresh ref id: 40 random bits, so collisions are rare and retried on insert."""
    return f"r_{uuid.uuid4().hex[:10]}"


def new_session_id() -> str:
    return f"s_{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class ParsedRef:
    """A ref as the model wrote it, before looking it up."""

    ref_id: str
    """The short id."""
    session_id: str | None = None
    """Session named by a URI (None for a short id)."""
    project: str | None = None
    """Project named by a URI (None for a short id)."""
    lines: tuple[int, int] | None = None
    """`:L<start>-<end>` suffix, if any."""
    messages: tuple[int, int] | None = None
    """For a transcript range: the first and last message number (then `ref_id` is `m_<a>-<b>`)."""

    @property
    def is_uri(self) -> bool:
        return self.session_id is not None

    @property
    def is_range(self) -> bool:
        return self.messages is not None


def range_id(first: int, last: int) -> str:
    """The in-session short form of a transcript range: `m_12-340`."""
    return f"m_{first}-{last}"


def build_range_uri(project: str, session_id: str, first: int, last: int) -> str:
    """`ctx://<project>/<session>/messages:<a>-<b>`: a transcript range from anywhere."""
    return f"{SCHEME}{quote(project, safe='/:._-~@+,=')}/{session_id}/messages:{first}-{last}"


def _parse_range(text: str, original: str) -> tuple[int, int] | None:
    match = _RANGE.match(text)
    if not match:
        return None
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else first
    if first < 1 or last < first:
        raise BadRef(
            f"bad message range in {original!r}: messages are numbered from 1 and the last "
            "must not come before the first, e.g. m_12-340"
        )
    return first, last


def session_range_id(session_id: str, first: int, last: int) -> str:
    """The short form of another session's transcript range: `s_0123456789ab/m_1-40`."""
    return f"{session_id}/{range_id(first, last)}"


def build_uri(project: str, session_id: str, ref_id: str, lines: tuple[int, int] | None = None) -> str:
    """`ctx://<project>/<session>/<ref>[:L<start>-<end>]` for a stored output."""
    uri = f"{SCHEME}{quote(project, safe='/:._-~@+,=')}/{session_id}/{ref_id}"
    if lines:
        start, end = lines
        uri += f":L{start}" if start == end else f":L{start}-{end}"
    return uri


def _parse_lines(text: str, original: str) -> tuple[int, int]:
    match = _LINES.match(text)
    if not match:
        raise BadRef(f"bad line range {text!r} in {original!r}: write it as :L<start>-<end>, e.g. :L10-40")
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) else start
    if start < 1 or end < start:
        raise BadRef(
            f"bad line range {text!r} in {original!r}: lines start at 1 and the end "
            "must not come before the start"
        )
    return start, end


def _split_ref_and_lines(text: str, original: str) -> tuple[str, tuple[int, int] | None]:
    ref_id, sep, suffix = text.partition(":")
    lines = _parse_lines(suffix, original) if sep else None
    if not _REF_ID.match(ref_id):
        raise BadRef(f"{original!r} is not a ref: {_USAGE}")
    return ref_id, lines


def parse_ref(text: str) -> ParsedRef:
    """Parse a short id (optionally with `:L…`) or a `ctx://` URI; BadRef for anything else."""
    original = text
    text = text.strip().strip("`'\"")
    if not text:
        raise BadRef(f"empty ref: {_USAGE}")
    if not text.startswith(SCHEME):
        qualified = _SESSION_RANGE.match(text)
        if qualified and (span := _parse_range(qualified.group(2), original)) is not None:
            return ParsedRef(range_id(*span), session_id=qualified.group(1), messages=span)
        span = _parse_range(text, original)
        if span is not None:
            return ParsedRef(ref_id=range_id(*span), messages=span)
        ref_id, lines = _split_ref_and_lines(text, original)
        return ParsedRef(ref_id=ref_id, lines=lines)
    parts = text[len(SCHEME) :].rsplit("/", 2)
    if len(parts) != 3 or not parts[0]:
        raise BadRef(f"{original!r} is not a valid URI: {_USAGE}")
    project, session_id, tail = parts
    if not _SESSION_ID.match(session_id):
        raise BadRef(f"{original!r} names no valid session id (s_ + 12 hex): {_USAGE}")
    span = _parse_range(tail, original)
    if span is not None:
        return ParsedRef(range_id(*span), session_id=session_id, project=unquote(project), messages=span)
    ref_id, lines = _split_ref_and_lines(tail, original)
    return ParsedRef(ref_id=ref_id, session_id=session_id, project=unquote(project), lines=lines)
