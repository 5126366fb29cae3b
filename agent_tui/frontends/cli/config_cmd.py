"""`agent-tui config show|path`: the merged settings and where each came from."""

from __future__ import annotations

import typer

from agent_tui.config import config_files, flatten
from agent_tui.frontends.cli.common import load_or_fail
from agent_tui.frontends.cli.group_default import run_by_default

app = typer.Typer(
    help="Show the merged configuration and the files it is read from.",
    rich_markup_mode=None,
)


@app.command("show")
def show() -> None:
    """Print every setting, its value and where it came from."""

    loaded = load_or_fail(notify=True)
    for key, value in flatten(loaded.config).items():
        origin = loaded.sources.get(key, "default")
        typer.echo(f"{key} = {value!r}    # {origin}")
    from pathlib import Path

    from agent_tui.extensions.report import everything  # lazy: start-up

    # Hooks from every file run (not only the winning one): each with the file it came from.
    for title, lines in everything(Path.cwd(), loaded.config.provenance.folder_trusted).items():
        typer.echo(f"# {title}:")
        for line in lines:
            typer.echo(f"#   {line}")


@app.command("path")
def path() -> None:
    """Print the config files read, in order (later wins)."""

    for file in config_files():
        state = "found" if file.is_file() else "absent"
        typer.echo(f"{file}    ({state})")


run_by_default(app, show)  # the group named alone (group_default.py)
