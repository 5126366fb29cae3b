"""`agent-tui db check|recover`: the way out when the database is damaged.

Opening a damaged database is refused with a line naming these two commands. `check` runs the
full `integrity_check` and prints what SQLite found; `recover` copies every readable row into a
new file (the damaged one is left as it was) and says how to use it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from agent_tui.frontends.cli.common import fail
from agent_tui.frontends.cli.group_default import run_by_default
from agent_tui.frontends.cli.store_output import DB_HELP, resolve_db

app = typer.Typer(help="Check the database, or salvage a damaged one into a new file.")


@app.command("check")
def check(db: Path | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Run SQLite's full integrity check; exit 1 when the file is damaged."""
    from agent_tui.store import StoreError  # lazy: start-up (every command's options load with the CLI)
    from agent_tui.store.health import check as run_check  # lazy: start-up

    path = resolve_db(db)
    try:
        report = asyncio.run(run_check(path))
    except StoreError as exc:
        fail(str(exc))
    if report.ok:
        typer.echo(f"{path}: ok")
        return
    typer.echo(f"{path}: damaged ({len(report.problems)} problem(s) found):")
    for problem in report.problems[:50]:
        typer.echo(f"  {problem}")
    typer.echo(f"Salvage what is readable with: agent-tui db recover --db {path}")
    raise typer.Exit(1)


@app.command("recover")
def recover(
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
    to: Path | None = typer.Option(None, "--to", help="New database file (default: beside the old one)."),
) -> None:
    """Copy every readable session, message and stored output into a new database file."""
    from agent_tui.store import StoreError  # lazy: start-up
    from agent_tui.store.recovery import default_target, remove_partial  # lazy: start-up
    from agent_tui.store.recovery import recover as run_recover  # lazy: start-up

    path = resolve_db(db)
    target = (to or default_target(path)).expanduser()
    try:
        report = asyncio.run(run_recover(path, target))
    except StoreError as exc:
        fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - one line; the half-written copy is removed
        remove_partial(target)
        fail(f"recovery failed: {exc}")
    sessions = report.copied.get("sessions", 0)
    messages = report.copied.get("messages", 0)
    outputs = report.copied.get("tool_result_blobs", 0)
    typer.echo(f"recovered {sessions} sessions, {messages} messages, {outputs} stored outputs into {target}")
    if report.lost:
        lost = ", ".join(f"{table} {count}" for table, count in report.lost.items())
        typer.echo(f"unreadable rows (skipped): {lost}")
    typer.echo(f"{path} was left as it was. Use the copy with --db {target}, or move it into place.")


run_by_default(app, None)  # the group named alone (group_default.py)
