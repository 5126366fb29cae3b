"""Tools that bring stored outputs and dropped messages back into context: read_result,
grep_result, recall, and the spec of compact_context (which the loop runs itself, since it
rewrites the history).

A ref is either a stored output (`r_…`) or a transcript range (`m_12-340`, named by the note that
replaced those messages at a compaction); both read and grep the same way. These are the model's
reads, so they count in the outputs' access statistics.

Every failure (unknown ref, bad regex, lines out of range) is an error result phrased so the model
can correct its call.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent_tui.base.tool_decl import Capabilities
from agent_tui.context.compaction.ref_labels import extent
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.picture_refs import picture_text

if TYPE_CHECKING:
    from agent_tui.store import Store

REF_HELP = (
    "a ref id like r_1a2b3c4d5e (from a tool view or the retain block), a transcript range like "
    "m_12-340 (earlier messages, named where compaction dropped them), or a ctx:// URI"
)


def _store(ctx: ToolContext) -> Store | None:
    return ctx.services.store


OTHER_PROJECT_HINT = (
    "Another project's outputs need the user's approval (or [store] recall_scope = \"all\" in their config)"
)


async def _may_read(ctx: ToolContext, project: str | None, tool_name: str) -> bool:
    """This project's outputs are free; another's need approval once per session, unless the
    user's config says `recall_scope = "all"`. Without a policy (no session) nothing is asked."""
    if project is None or project == str(ctx.workspace) or ctx.services.recall_scope == "all":
        return True
    gate = ctx.services.projects
    if gate is None:
        return True
    return await gate.allow_project(project, tool_name)


async def _check_ref(ctx: ToolContext, store: Any, ref: str, tool_name: str) -> ToolOutput | None:
    """An error output when `ref` is another project's and reading it is not allowed."""
    from agent_tui.store import StoreError
    from agent_tui.store.conversation import is_range

    resolver = store.transcript.resolve if is_range(ref) else store.results.resolve
    try:
        resolved = await resolver(ref, ctx.session_id)
    except StoreError as exc:
        return ToolOutput.error(str(exc))
    if await _may_read(ctx, resolved.project, tool_name):
        return None
    return ToolOutput.error(
        f"{ref} belongs to project {resolved.project}: not allowed. {OTHER_PROJECT_HINT}."
    )


class ReadResult:
    spec = ToolSpec(
        name="read_result",
        brief="Read lines of a stored output by ref.",
        description=(
            "Read numbered lines of a stored tool output. Large outputs appear in context only as "
            "a view (head and tail) with a ref; use this to page through the rest. Given a "
            "transcript range (m_12-340), it reads those earlier messages, numbered and "
            "role-labelled; offset and limit then count messages."
        ),
        parameters={
            "type": "object",
            "properties": {
                "ref_id": {"type": "string", "description": REF_HELP},
                "offset": {
                    "type": "integer",
                    "description": "First line (1-based); default 1, or the start of a URI's :L range.",
                },
                "limit": {"type": "integer", "description": "How many lines (default 200)."},
            },
            "required": ["ref_id"],
        },
        paged=True,
        source="context",
        capabilities=Capabilities(kind="read", stored=False),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        store = _store(ctx)
        if store is None:
            return ToolOutput.error("the result store is unavailable in this session")
        # No offset given: let a `ctx://…:L<start>-<end>` URI choose the lines.
        offset = int(args["offset"]) if args.get("offset") else None
        limit = max(1, min(int(args["limit"]), 5000)) if args.get("limit") else None
        from agent_tui.store import StoreError
        from agent_tui.store.conversation import is_range

        if (refused := await _check_ref(ctx, store, str(args["ref_id"]), "read_result")) is not None:
            return refused
        if not is_range(args["ref_id"]) and (
            picture := await picture_text(store, str(args["ref_id"]), ctx.session_id)
        ):
            return ToolOutput(text=picture, summary="a picture")
        try:
            if is_range(args["ref_id"]):
                text = await store.transcript.read(
                    str(args["ref_id"]),
                    offset,
                    limit,
                    session_id=ctx.session_id,
                    max_bytes=ctx.max_message_bytes,
                )
            else:
                text = await store.results.read(
                    str(args["ref_id"]),
                    offset,
                    limit,
                    session_id=ctx.session_id,
                    max_bytes=ctx.max_message_bytes,
                    touch=True,
                )
        except StoreError as exc:
            return ToolOutput.error(str(exc))
        return ToolOutput(text=text, summary=f"from line {offset or 1}")


class GrepResult:
    spec = ToolSpec(
        name="grep_result",
        brief="Lines of a stored output (by ref) matching a regular expression.",
        rarely_needed=True,
        description="Find the lines of a stored tool output (or of a transcript range like "
        "m_12-340) that match a regular expression; returns them with their line or message "
        "numbers (use read_result to see around them).",
        parameters={
            "type": "object",
            "properties": {
                "ref_id": {"type": "string", "description": REF_HELP},
                "pattern": {"type": "string", "description": "Python regular expression."},
                "context": {
                    "type": "integer",
                    "description": "Lines of context around each match.",
                    "default": 0,
                },
            },
            "required": ["ref_id", "pattern"],
        },
        source="context",
        capabilities=Capabilities(kind="search", stored=False),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        store = _store(ctx)
        if store is None:
            return ToolOutput.error("the result store is unavailable in this session")
        from agent_tui.store import StoreError
        from agent_tui.store.conversation import is_range

        if (refused := await _check_ref(ctx, store, str(args["ref_id"]), "grep_result")) is not None:
            return refused
        if not is_range(args["ref_id"]) and (
            picture := await picture_text(store, str(args["ref_id"]), ctx.session_id)
        ):
            return ToolOutput(text=picture, summary="a picture")
        try:
            if is_range(args["ref_id"]):
                text = await store.transcript.grep(
                    str(args["ref_id"]),
                    str(args["pattern"]),
                    context=int(args.get("context") or 0),
                    session_id=ctx.session_id,
                    max_bytes=ctx.max_message_bytes,
                )
            else:
                text = await store.results.grep(
                    str(args["ref_id"]),
                    str(args["pattern"]),
                    context=int(args.get("context") or 0),
                    session_id=ctx.session_id,
                    touch=True,
                )
        except (StoreError, re.error) as exc:
            return ToolOutput.error(str(exc))
        return ToolOutput(text=text)


class Recall:
    spec = ToolSpec(
        name="recall",
        brief="Search earlier messages and tool outputs across sessions.",
        description="Search what was said and what tools returned, across sessions and projects "
        "(full-text, ranked; words match their inflections): user and assistant messages and "
        "tool-call arguments (hits name the message as m_<n>-<n>, even after compaction dropped "
        "it, and a call's hit names its output's ref), and every stored tool output (hits name "
        "its ref and the call that made it). Pass several phrasings in `queries` at once — "
        "synonyms and the words the text likely used (a file name, a command, an error) — since "
        "only words that occur are found. grep_result or read_result on a hit's ref shows more.",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to search for."},
                "queries": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Several phrasings searched at once (a hit may match any one): "
                    "synonyms, likely terms, names.",
                },
                "scope": {"type": "string", "enum": ["session", "project", "all"], "default": "all"},
                "source": {
                    "type": "string",
                    "enum": ["all", "conversation", "outputs"],
                    "default": "all",
                    "description": "Search the messages, the stored outputs, or both.",
                },
                "limit": {"type": "integer", "default": 10},
            },
        },
        source="context",
        capabilities=Capabilities(kind="search", stored=False),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        store = _store(ctx)
        if store is None:
            return ToolOutput.error("the result store is unavailable in this session")
        asked = phrasings_of(args)
        if not asked:
            return ToolOutput.error(
                'recall needs words to search for: query="…" or queries=["…", "…"] (several phrasings)'
            )
        scope = args.get("scope") or "all"
        source = args.get("source") or "all"
        kwargs: dict[str, Any] = {"limit": max(1, min(int(args.get("limit") or 10), 50))}
        if scope == "session":
            kwargs["session_id"] = ctx.session_id
        elif scope == "project":
            kwargs["project"] = str(ctx.workspace)
        from agent_tui.store import StoreError

        query: str | list[str] = asked[0] if len(asked) == 1 else asked
        shown = " | ".join(asked)
        try:
            # "session" is this session and its sub-agents' (agent/subagents.py): their work is
            # part of this session's, kept in their own transcripts.
            owners = (
                [ctx.session_id, *await store.sessions.descendants(ctx.session_id)]
                if scope == "session"
                else [None]
            )
            said, stored = [], []
            for owner in owners:
                if owner is not None:
                    kwargs["session_id"] = owner
                if source != "outputs":
                    said += await store.transcript.recall(query, asking=ctx.session_id, **kwargs)
                if source != "conversation":
                    stored += await store.results.recall(query, **kwargs)
            if len(owners) > 1:
                said = sorted(said, key=lambda h: -h.score)[: kwargs["limit"]]
                stored = sorted(stored, key=lambda h: -h.score)[: kwargs["limit"]]
        except StoreError as exc:
            return ToolOutput.error(str(exc))
        withheld: dict[str, int] = {}

        async def allowed(hits: list[Any]) -> list[Any]:
            kept = []
            for hit in hits:
                if await _may_read(ctx, hit.project, "recall"):
                    kept.append(hit)
                else:
                    withheld[hit.project] = withheld.get(hit.project, 0) + 1
            return kept

        said, stored = await allowed(list(said)), await allowed(list(stored))
        note = (
            f"\n[{sum(withheld.values())} match(es) in other projects withheld ("
            + ", ".join(withheld)
            + f"). {OTHER_PROJECT_HINT}.]"
            if withheld
            else ""
        )
        if not said and not stored:
            return ToolOutput(
                text=f"Nothing said or stored matches {shown!r} ({scope}).{note}", summary="0 hits"
            )
        lines: list[str] = []
        if said:
            lines.append(f"{len(said)} message(s) match {shown!r} (read_result(ref_id=…) shows one whole):")
            for hit in said:
                # A short range resolves only inside its own session: elsewhere give the URI.
                own = hit.session_id == ctx.session_id
                where = "" if own else f" in session {hit.session_id} ({hit.project})"
                handle = hit.ref if own else hit.uri
                leads = f" → its {hit.outputs}" if hit.outputs else ""
                lines.append(f"- {handle} message #{hit.seq} {hit.role}{where}: {hit.snippet}{leads}")
        if stored:
            lines.append(f"{len(stored)} stored output(s) match {shown!r}:")
            for out in stored:
                handle = out.ref.id if out.session_id == ctx.session_id else out.uri
                size = extent(out.ref.byte_size, out.ref.line_count)
                made = f", made by {out.call}" if out.call else ""
                snippet = " ".join(str(out.snippet).split())
                lines.append(
                    f"- {handle} {out.ref.tool_name} ({size}, lines {out.lines[0]}-{out.lines[1]}{made}): {snippet}"
                )
        return ToolOutput(text="\n".join(lines) + note, summary=f"{len(said) + len(stored)} hits")


def phrasings_of(args: dict[str, Any]) -> list[str]:
    """`query` and `queries` together, without blanks or repeats (a lone string in `queries`
    is one phrasing)."""
    raw = args.get("queries")
    many = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else []
    found = [str(q).strip() for q in [args.get("query"), *many] if q is not None and str(q).strip()]
    return list(dict.fromkeys(found))


class CompactContext:
    """Spec only: the loop runs compaction itself, because it rewrites the history."""

    spec = ToolSpec(
        name="compact_context",
        brief="Free context space now.",
        description="Free context space now: older tool outputs are cleared (still readable by "
        "ref), old results condensed, and older history summarised. Call it before a large "
        "operation when told the context is filling up.",
        parameters={
            "type": "object",
            "properties": {
                "instructions": {"type": "string", "description": "What the summary must keep (optional)."},
            },
        },
        source="context",
        capabilities=Capabilities(kind="other", stored=False),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput.error("compact_context is run by the agent loop")


def context_tools() -> list[Any]:
    from agent_tui.tools.side_tools import side_tools

    return [ReadResult(), GrepResult(), Recall(), CompactContext(), *side_tools()]
