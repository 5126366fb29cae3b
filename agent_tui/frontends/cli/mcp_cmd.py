"""`agent-tui mcp list`: the configured MCP servers, their tools, and what each tool costs.

It starts the servers the way a session would (same config, same timeout), waits until each is
up or has failed, prints them, and stops them. The token figure is what a tool's schema (name,
description, parameters) costs in every request that offers it — the number deferral weighs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from agent_tui.base.units import grouped
from agent_tui.base.visible_text import json_visible
from agent_tui.frontends.cli.common import echo_visible, fail, load_or_fail
from agent_tui.frontends.cli.group_default import run_by_default
from agent_tui.frontends.cli.store_output import DB_HELP, run_with_store
from agent_tui.runtime.logs import setup_logging

app = typer.Typer(help="MCP servers configured under [mcp.servers.NAME].", rich_markup_mode=None)


async def collect_reports(config: Any, workspace: Path) -> tuple[list[Any], list[str]]:
    """Start every configured server, describe them, stop them: (reports, warnings)."""
    from agent_tui.base.tokens import TokenCounter  # lazy: start-up (loads with the CLI)
    from agent_tui.tools.mcp import McpManager  # lazy: start-up
    from agent_tui.tools.sandbox_setup import make_sandbox  # lazy: start-up

    sandbox = await make_sandbox(config, workspace)  # started as a session would start them
    manager = McpManager.from_config(config, workspace, sandbox=sandbox)
    manager.start()
    try:
        await manager.ready()
        return manager.describe(TokenCounter(config.model.name)), list(manager.notices)
    finally:
        await manager.stop()
        sandbox.close()


def render(reports: list[Any]) -> list[str]:
    """The plain-text table: one line per server, one indented line per tool."""
    lines = []
    width = max((len(t.name) for r in reports for t in r.tools), default=20)
    for report in reports:
        status = report.state if report.state == "ready" else f"{report.state}: {report.error}"
        lines.append(
            f"{report.name}  {status}  ({len(report.tools)} tools, "
            f"{grouped(report.tokens)} tokens)  {report.command}"
        )
        for tool in report.tools:
            lines.append(f"  {tool.name:<{width}}  {grouped(tool.tokens):>6}  {tool.description[:70]}")
    total = sum(r.tokens for r in reports)
    lines.append(
        f"total: {sum(len(r.tools) for r in reports)} tools, {grouped(total)} tokens of tool descriptions"
    )
    return lines


@app.command("list")
def list_servers(
    as_json: bool = typer.Option(False, "--json", help="One JSON object with every server."),
    timeout: float | None = typer.Option(None, "--timeout", help="Seconds each server gets to start."),
) -> None:
    """Start the configured servers and list their tools with the tokens each costs."""
    import asyncio

    setup_logging()
    overrides = {"mcp": {"startup_timeout": timeout}} if timeout else None
    config = load_or_fail(overrides, notify=True).config
    if not config.mcp.servers:
        if as_json:
            typer.echo(json.dumps({"servers": []}))
            return
        typer.echo(
            "No MCP servers configured: add a [mcp.servers.NAME] table with "
            "command, args and env to config.toml."
        )
        return
    try:
        reports, warnings = asyncio.run(collect_reports(config, Path.cwd().resolve()))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except Exception as exc:  # noqa: BLE001 - one line for the user, the details in the log
        fail(f"listing MCP servers failed: {exc}")
    if as_json:
        # A server's tool names and descriptions are a tool's output: nothing in them acts.
        typer.echo(
            json_visible(
                json.dumps(
                    {"servers": [r.to_json() for r in reports], "warnings": warnings}, ensure_ascii=False
                )
            )
        )
    else:
        for line in render(reports):
            echo_visible(line)
        for warning in warnings:
            echo_visible(f"agent-tui: {warning}", err=True)
    if reports and all(r.state != "ready" for r in reports):
        raise typer.Exit(1)


@app.command("serve")
def serve(
    project: Path | None = typer.Option(
        None, "--project", help="The project whose sessions and outputs are shown (default: this folder)."
    ),
    all_projects: bool = typer.Option(
        False, "--all-projects", help="Show every project's sessions and outputs, not one."
    ),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Serve the store over stdio as a read-only MCP server (recall, read_result, grep_result,
    sessions), so Claude Code, Codex or any MCP client can search what agent-tui stored."""
    from agent_tui.frontends.cli.mcp_serve import serve_stdio  # lazy: start-up
    from agent_tui.store.archive import Archive, Scope  # lazy: start-up

    if project is not None and all_projects:
        fail("give --project or --all-projects, not both")
    folder = (project or Path.cwd()).expanduser().resolve()
    if project is not None and not folder.is_dir():
        fail(f"--project {project}: not a folder")
    scope = Scope(None if all_projects else str(folder))

    async def work(store: Any) -> None:
        await serve_stdio(Archive(store, scope))

    try:
        run_with_store(db, work)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


run_by_default(app, list_servers)  # the group named alone (group_default.py)
