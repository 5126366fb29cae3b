"""`agent-tui blobs list|show|grep|recall|gc`: the stored tool outputs from the command line."""

from __future__ import annotations

import re
import sys
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agent_tui.frontends.cli.common import echo_visible, fail, is_piped, load_or_fail
from agent_tui.frontends.cli.group_default import run_by_default
from agent_tui.frontends.cli.store_output import (
    DB_HELP,
    find_session,
    fmt_size,
    fmt_time,
    one_line,
    print_table,
    project_filter,
    run_with_store,
)

if TYPE_CHECKING:
    from agent_tui.store import Store

app = typer.Typer(
    help="Browse, search and garbage-collect stored tool outputs.",
    rich_markup_mode=None,
)

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
}
_SPANS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    if not match or match.group(2).lower() not in _UNITS:
        fail(f"bad size {text!r}: use a number with an optional unit, e.g. 500M or 2G")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def parse_age(text: str) -> timedelta:
    match = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text)
    if not match:
        fail(f"bad age {text!r}: use a number and a unit m/h/d/w, e.g. 30d or 12h")
    return timedelta(seconds=int(match.group(1)) * _SPANS[match.group(2)])


@app.command("list")
def list_blobs(
    session: str | None = typer.Option(None, "--session", "-s", help="Only this session."),
    project: Path | None = typer.Option(None, "--project", "-p", help="Only this directory."),
    here: bool = typer.Option(False, "--here", help="Only the current directory."),
    limit: int = typer.Option(50, "--limit", "-n", help="At most this many."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Stored outputs, newest first."""
    where = project_filter(project, here)

    async def work(store: Store) -> list[Any]:
        session_id = (await find_session(store, session)).id if session else None
        return await store.results.list_blobs(session_id, where, limit)

    found = run_with_store(db, work)
    rows = [
        (
            b.ref.id,
            b.ref.tool_name,
            fmt_size(b.ref.byte_size),
            b.ref.line_count,
            b.ref.session_id,
            fmt_time(b.created),
            fmt_time(b.last_accessed),
            b.access_count,
            one_line(b.first_line, 60),
        )
        for b in found
    ]
    print_table(
        "Stored outputs",
        ["ref", "tool", "size", "lines", "session", "created", "last read", "reads", "first line"],
        rows,
        empty="No stored outputs.",
        fixed=("ref", "size", "lines", "session", "last read", "reads"),
    )


@app.command("show")
def show(
    ref: str = typer.Argument(..., help="Ref id, ctx:// URI, or ctx://…/messages:A-B transcript range."),
    offset: int | None = typer.Option(None, "--offset", help="First line (from 1)."),
    limit: int | None = typer.Option(None, "--limit", "-n", help="Lines to show."),
    raw: bool = typer.Option(
        False, "--raw", help="Write the whole output, byte for byte (into a pipe or file, not a terminal)."
    ),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Numbered lines of a stored output (or the raw bytes with --raw), or the messages of a
    transcript range."""
    # lazy: start-up — `blobs --help` must not load the store
    from agent_tui.store.conversation import is_range

    if is_range(ref):
        echo_visible(
            run_with_store(db, lambda store: store.transcript.read(ref, offset, limit, max_bytes=1 << 30))
        )
        return
    if raw and not sys.stdout.isatty():  # the exact bytes, for a file or a pipe; never a terminal

        async def dump(store: Store) -> None:
            out = sys.stdout.buffer
            async for piece in store.results.iter_bytes(ref):
                out.write(piece)
            out.flush()

        run_with_store(db, dump)
        return
    echo_visible(run_with_store(db, lambda store: store.results.read(ref, offset, limit, max_bytes=1 << 30)))


@app.command("grep")
def grep(
    ref: str = typer.Argument(..., help="Ref id, ctx:// URI, or ctx://…/messages:A-B transcript range."),
    pattern: str = typer.Argument(..., help="Python regular expression."),
    context: int = typer.Option(0, "--context", "-C", help="Lines of context around matches."),
    max_matches: int = typer.Option(200, "--max", "-m", help="Stop after this many matches."),
    timeout: float | None = typer.Option(
        None, "--timeout", help="Seconds before the search stops (default: [tools] search_timeout)."
    ),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Lines of a stored output (or transcript range) matching a regex, with their numbers."""
    # lazy: start-up — `blobs --help` must not load the store
    from agent_tui.store.conversation import is_range

    if timeout is None:
        timeout = load_or_fail().config.tools.search_timeout
    elif timeout <= 0:
        fail(f"--timeout must be a positive number of seconds, got {timeout:g}", 2)
    budget = timeout

    async def work(store: Store) -> str:
        if is_range(ref):
            return await store.transcript.grep(ref, pattern, context, max_bytes=1 << 30)
        return await store.results.grep(ref, pattern, context, max_matches=max_matches, max_bytes=1 << 30)

    text = run_with_store(db, work, search_timeout=budget)
    echo_visible(text)
    if "[search stopped after" in text or text.startswith("[no match of"):
        raise typer.Exit(1)


@app.command("recall")
def recall(
    query: list[str] = typer.Argument(..., help="Words to search for."),
    project: Path | None = typer.Option(None, "--project", "-p", help="Only this directory."),
    here: bool = typer.Option(False, "--here", help="Only the current directory."),
    limit: int = typer.Option(10, "--limit", "-n", help="At most this many."),
    conversation: bool = typer.Option(
        False, "--conversation", "-c", help="Search what was said (transcripts) instead of outputs."
    ),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Search every stored output (all sessions and projects), best match first; with
    --conversation, the user's and the assistant's messages and tool-call arguments."""
    where = str(Path.cwd()) if here else (str(project.expanduser().absolute()) if project else None)
    if conversation:
        said = run_with_store(db, lambda store: store.transcript.recall(" ".join(query), where, limit=limit))
        if not said and not is_piped():
            typer.echo("No message matches.")
            return
        lines = [(f"{h.score:.3g}", h.uri, h.role, one_line(h.snippet, 120)) for h in said]
        print_table("Recall", ["score", "uri", "role", "snippet"], lines)
        return
    hits = run_with_store(db, lambda store: store.results.recall(" ".join(query), where, limit=limit))
    if not hits and not is_piped():
        typer.echo("No stored output matches.")
        return
    rows = [(f"{h.score:.3g}", h.uri, h.ref.tool_name, one_line(h.snippet, 120)) for h in hits]
    print_table("Recall", ["score", "uri", "tool", "snippet"], rows)


@app.command("gc")
def gc(
    older_than: str | None = typer.Option(
        None, "--older-than", help="Also remove outputs unread for this long (e.g. 30d, 12h)."
    ),
    max_size: str | None = typer.Option(
        None,
        "--max-size",
        help="Then remove least recently read outputs until the total is under this (e.g. 2G).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only say what would go."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Remove outputs of deleted sessions and, if asked, old or surplus ones. Outputs a
    session's current context still refers to are always kept."""
    age = parse_age(older_than) if older_than else None
    cap = parse_size(max_size) if max_size else None
    report = run_with_store(db, lambda store: store.results.gc(age, cap, dry_run))
    verb = "would remove" if report.dry_run else "removed"
    typer.echo(
        f"{verb} {report.blobs_removed} outputs ({fmt_size(report.bytes_removed)}); "
        f"kept {report.protected} still referenced; database "
        f"{fmt_size(report.file_bytes_before)} → {fmt_size(report.file_bytes_after)}"
    )


run_by_default(app, list_blobs)  # the group named alone (group_default.py)
