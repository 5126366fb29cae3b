"""`agent-tui trust [list | add [PATH] | remove PATH]`: the folders whose project file applies in full.

A folder's `.agent-tui.toml` may start MCP servers, widen approvals or choose where requests go
only once the user trusts it (trust.py); trusting records the file's hash, so a later change to
the file asks again.
"""

from __future__ import annotations

from pathlib import Path

import typer

from agent_tui.agent.definitions import untrusted_items
from agent_tui.config import read_toml
from agent_tui.frontends.cli.common import fail
from agent_tui.hooks.sources import withheld_hooks
from agent_tui.policy import trust
from agent_tui.policy.extension_files import withheld as withheld_extensions
from agent_tui.runtime import paths

app = typer.Typer(
    help="Folders whose .agent-tui.toml may run commands, start MCP servers or choose providers.",
    invoke_without_command=True,
)


@app.callback()
def default(ctx: typer.Context) -> None:
    """With no sub-command: list the trusted folders."""
    if ctx.invoked_subcommand is None:
        list_folders()


@app.command("list")
def list_folders() -> None:
    """The trusted folders; `changed` marks one whose project file changed since (asked again)."""

    folders = trust.listing()
    if not folders:
        typer.echo("No trusted folders. `agent-tui trust add [PATH]` trusts one (default: here).")
        return
    for folder, state in folders:
        mark = "" if state == "trusted" else "    (changed since trusted: not trusted until added again)"
        typer.echo(f"{folder}{mark}")


@app.command("add")
def add(path: Path | None = typer.Argument(None, help="The folder (default: the current one).")) -> None:
    """Trust a folder's .agent-tui.toml as it is now; prints what that enables."""

    folder = (path or Path.cwd()).expanduser()
    if not folder.is_dir():
        fail(f"{folder} is not a folder", 2)
    project = paths.project_config_file(folder)
    enabled: tuple[str, ...] = ()
    if project.is_file():
        try:
            enabled = trust.filter_project(read_toml(project), trusted=False).ignored
        except Exception as exc:  # noqa: BLE001 - a broken file is the user's to see, one line
            fail(str(exc), 2)

    # .claude/ hooks run from now on too, and the project's commands, skills and agents load.
    enabled = (*enabled, *withheld_hooks(folder), *withheld_extensions(folder), *untrusted_items(folder))
    key = trust.add(folder)
    what = f"; its project settings now apply in full: {', '.join(enabled)}" if enabled else ""
    typer.echo(f"trusted {key}{what}")


@app.command("remove")
def remove(path: Path = typer.Argument(..., help="The folder to stop trusting.")) -> None:
    """Stop trusting a folder: its project file is back to harmless keys only."""

    if not trust.remove(path.expanduser()):
        fail(f"{path} is not a trusted folder (see `agent-tui trust list`)", 1)
    typer.echo(f"no longer trusted: {path}")
