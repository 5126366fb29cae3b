"""The `agent-tui` command: the TUI by default, `run` headless, and management sub-commands.

Start-up must stay fast (`--help` ≤ 0.3 s): nothing heavy is imported here.
"""

from __future__ import annotations

from pathlib import Path

import typer

from agent_tui import __version__
from agent_tui.commands import blobs_cmd, config_cmd, loop_cmd, mcp_cmd, run_cmd, sessions_cmd, trust_cmd

app = typer.Typer(
    help="A terminal agent shell whose edge is context management.",
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(config_cmd.app, name="config")
app.add_typer(mcp_cmd.app, name="mcp")
app.add_typer(sessions_cmd.app, name="sessions")
app.add_typer(blobs_cmd.app, name="blobs")
app.add_typer(trust_cmd.app, name="trust")
app.command("run")(run_cmd.run)
app.command("loop")(loop_cmd.loop)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"agent-tui {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def launch(
    ctx: typer.Context,
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model name."),
    api_base: str | None = typer.Option(None, "--api-base", help="OpenAI-compatible base URL."),
    context_window: int | None = typer.Option(None, "--context-window", help="Window override."),
    max_output_tokens: int | None = typer.Option(None, "--max-output-tokens", help="Reply reserve override."),
    db: Path | None = typer.Option(None, "--db", help="SQLite database path."),
    continue_: bool = typer.Option(
        False, "--continue", "-c", help="Resume the newest session of this directory."
    ),
    session: str | None = typer.Option(None, "--session", "-s", help="Resume a session by id."),
    sandbox: str | None = typer.Option(
        None, "--sandbox", help="Command sandbox: workspace-write, read-only or off."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Open the TUI (when no sub-command is given)."""
    if ctx.invoked_subcommand is not None:
        return
    from agent_tui.commands.common import load_or_fail, model_overrides
    from agent_tui.logs import setup_logging

    setup_logging()
    overrides = model_overrides(model, api_base, context_window, max_output_tokens, db, sandbox)
    loaded = load_or_fail(overrides)
    from agent_tui.commands.tui import launch_tui

    code = launch_tui(
        loaded.config, continue_=continue_, session_id=session, loaded=loaded, overrides=overrides
    )
    if code:
        raise typer.Exit(code)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
