"""`agent-tui sessions list|show|export|import|delete`.

Output goes through frontends/cli/store_output.py, shared with `blobs`. The store is imported inside
the commands: `agent-tui --help` must stay fast.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agent_tui.base.units import grouped
from agent_tui.frontends.cli.common import echo_visible, fail, is_piped, load_or_fail, model_overrides
from agent_tui.frontends.cli.group_default import run_by_default
from agent_tui.frontends.cli.store_output import (
    DB_HELP,
    find_session,
    fmt_time,
    one_line,
    print_table,
    project_filter,
    resolve_db,
    run_with_store,
)

if TYPE_CHECKING:
    from agent_tui.store import Store

app = typer.Typer(help="List, show, export, import and delete saved sessions.", rich_markup_mode=None)


@app.command("list")
def list_sessions(
    project: Path | None = typer.Option(None, "--project", "-p", help="Only this directory."),
    here: bool = typer.Option(False, "--here", help="Only the current directory."),
    limit: int = typer.Option(50, "--limit", "-n", help="At most this many."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
    show_all: bool = typer.Option(
        False, "--all", "-a", help="Also untitled sessions without a message (a launch that sent nothing)."
    ),
) -> None:
    """Saved sessions, most recently used first."""
    where = project_filter(project, here)
    # Every TUI launch stores its session at once: the empty ones are hidden, as /resume does,
    # before the limit so that -n counts the sessions shown.
    found = run_with_store(db, lambda store: store.sessions.list(where, limit=limit if show_all else None))
    # A named one stays: the user gave it a title (/rename) even before writing to it.
    shown = [s for s in found if show_all or s.message_count or s.title]
    hidden = len(found) - len(shown)
    found = shown[:limit]
    from agent_tui.frontends.session_tree import indented, tree_order  # lazy: start-up
    from agent_tui.llm.cost import format_cost  # lazy: start-up (typer imports every command's module)

    rows = [
        (
            s.id,
            indented(one_line(s.title or "(untitled)", 40), depth)  # sub-agents under their parent
            + (f" (fork of {s.forked_from})" if s.forked_from else ""),
            s.project,
            s.model or "-",
            s.message_count,
            s.tokens,
            # An empty session spent nothing whatever the prices: `-`, like its missing model.
            format_cost(s.cost) if s.message_count else "-",
            fmt_time(s.updated),
        )
        for s, depth in tree_order(found)
    ]
    print_table(
        "Sessions",
        ["id", "title", "project", "model", "messages", "tokens", "cost", "updated"],
        rows,
        empty=f"No saved sessions with messages ({hidden} empty: --all shows them)."
        if hidden
        else "No saved sessions.",
        fixed=("id", "messages", "tokens", "cost", "updated"),
        cut_left=("project",),
    )


def _message_row(seq: int, message: Any) -> tuple[Any, ...]:
    text = message.content or ""
    if message.tool_calls:
        calls = ", ".join(f"{c.name}({one_line(c.arguments, 40)})" for c in message.tool_calls)
        text = f"{text} → {calls}" if text else f"→ {calls}"
    ref = f" [{message.output_ref.id}]" if message.output_ref else ""
    return seq, message.role, message.kind, _with_reasoning(message, one_line(text, 100) + ref)


def _with_reasoning(message: Any, text: str) -> Any:
    """A reply's cell with what the model thought first: on a terminal a dimmed line above the
    text (as the TUI's folded block), piped a prefix that keeps the row one line."""
    thought = message.reasoning
    if thought is None or thought.empty:
        return text
    size = f"{grouped(thought.tokens)} tokens" if thought.tokens else "redacted"
    preview = one_line(thought.text, 100) or "(redacted by the provider)"
    if is_piped():
        return f"(thought {size}, {thought.duration:.1f} s: {preview}) {text}"
    from rich.text import Text

    return Text.assemble((f"thinking · {size} · {thought.duration:.1f} s: {preview}", "dim"), "\n", text)


@app.command("show")
def show(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix will do)."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """A session's details and its transcript, one line per message."""

    async def work(store: Store) -> tuple[Any, list[Any]]:
        info = await find_session(store, session_id)
        return info, await store.sessions.numbered(info.id)

    info, messages = run_with_store(db, work)
    if not is_piped():
        echo_visible(
            f"{info.id}  {info.title or '(untitled)'}\n  project {info.project}\n"
            f"  model {info.model or '-'} · {grouped(info.message_count)} messages · "
            f"{grouped(info.tokens)} tokens · created {fmt_time(info.created)} · updated "
            f"{fmt_time(info.updated)}"
        )
    print_table("Transcript", ["seq", "role", "kind", "text"], [_message_row(i, m) for i, m in messages])


@app.command("export")
def export(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix will do)."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="File to write (default ./agent-tui-<id>.json)."
    ),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Write a session with its transcript, snapshots and stored outputs to one JSON file."""

    async def work(store: Store) -> Path:
        info = await find_session(store, session_id)
        target = output or Path(f"agent-tui-{info.id}.json")
        return await store.sessions.export(info.id, target)

    typer.echo(str(run_with_store(db, work)))


@app.command("import")
def import_(
    file: Path = typer.Argument(..., help="A file written by `sessions export`."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Load an exported session (ids are kept, so its refs still resolve)."""
    info = run_with_store(db, lambda store: store.sessions.import_(file))
    typer.echo(
        f"imported {info.id} ({info.title or 'untitled'}, {info.message_count} messages); "
        f"open it with `agent-tui -r {info.id}` (--continue keeps your own newest session)"
    )


@app.command("delete")
def delete(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix will do)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Delete a session with its transcript, snapshots and stored outputs."""
    info = run_with_store(db, lambda store: find_session(store, session_id))
    if not yes:
        if not sys.stdin.isatty():
            fail(f"not deleting {info.id} without confirmation: pass --yes")
        typer.confirm(
            f"Delete {info.id} ({info.title or 'untitled'}, {info.message_count} "
            "messages) and its stored outputs?",
            abort=True,
        )
    run_with_store(db, lambda store: store.sessions.delete(info.id))
    typer.echo(f"deleted {info.id}")


@app.command("rename")
def rename(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix will do)."),
    title: str = typer.Argument(..., help="The new title."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Give a session a title (shown in tabs, /resume and `sessions list`)."""
    info = run_with_store(db, lambda store: find_session(store, session_id))
    run_with_store(db, lambda store: store.sessions.rename(info.id, title))
    typer.echo(f"renamed {info.id}: {title}")


@app.command("fork")
def fork(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix will do)."),
    at: int | None = typer.Option(
        None, "--at", help="Continue from before message N (`sessions show` numbers them); default: all."
    ),
    title: str | None = typer.Option(None, "--title", help="The fork's title."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Copy a session's conversation into a new session; prints its id for `run --session`."""
    info = run_with_store(db, lambda store: find_session(store, session_id))
    from agent_tui.store.forks import fork_session  # lazy: start-up

    forked = run_with_store(db, lambda store: fork_session(store.sessions, info.id, at, title))
    typer.echo(forked.id)


@app.command("compact")
def compact(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix will do)."),
    instructions: str | None = typer.Option(None, "--instructions", "-i", help="What the summary must keep."),
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model name."),
    api_base: str | None = typer.Option(None, "--api-base", help="OpenAI-compatible base URL."),
    context_window: int | None = typer.Option(None, "--context-window", help="Window override."),
    as_json: bool = typer.Option(False, "--json", help="One JSON event per line."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Compact a saved session now, as /compact does; its next resume starts from the result."""
    # lazy: start-up — `sessions --help` must not load the agent, the store or rich
    from agent_tui.frontends.cli.run_turn import run_turn

    info = run_with_store(db, lambda store: find_session(store, session_id))
    loaded = load_or_fail(model_overrides(model, api_base, context_window, None, db))
    code = asyncio.run(
        run_turn(
            loaded.config,
            "",
            session_id=info.id,
            continue_=False,
            yes=False,
            as_json=as_json,
            compact_first=True,
            db=resolve_db(db),
            instructions=instructions,
        )
    )
    raise typer.Exit(code)


@app.command("undo")
def undo_cmd(
    session_id: str = typer.Argument(..., help="Session id (a unique prefix will do)."),
    turns: int = typer.Option(1, "--turns", "-n", help="How many turns with edits to undo."),
    force: bool = typer.Option(False, "--force", help="Overwrite files changed outside since."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Put back the files the agent changed in the last turn(s) of a session."""
    # lazy: start-up — `sessions --help` must not load the agent, the store or rich
    from agent_tui.agent.undo import undo

    info = run_with_store(db, lambda store: find_session(store, session_id))
    report = run_with_store(db, lambda store: undo(store, info.id, turns, force=force))
    typer.echo(report.describe(Path(info.project)))
    if report.refused:
        raise typer.Exit(1)


run_by_default(app, list_sessions)  # the group named alone (group_default.py)
