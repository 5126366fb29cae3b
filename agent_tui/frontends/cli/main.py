"""The `agent-tui` command: the TUI by default, `run` headless, and management sub-commands.

Start-up must stay fast (`--help` ≤ 0.3 s): nothing heavy is imported here.
"""

from __future__ import annotations

from pathlib import Path

import typer

from agent_tui import __version__
from agent_tui.base.errors_text import one_line
from agent_tui.frontends.cli import (
    acp_cmd,
    blobs_cmd,
    config_cmd,
    db_cmd,
    loop_cmd,
    mcp_cmd,
    run_cmd,
    serve_cmd,
    sessions_cmd,
    trust_cmd,
)
from agent_tui.frontends.cli.common import fail, load_or_fail, model_overrides
from agent_tui.frontends.cli.group_default import run_with
from agent_tui.frontends.cli.message_group import MessageGroup, message
from agent_tui.runtime import children, gc_pause, shutdown
from agent_tui.runtime.logs import current_log, setup_logging

app = typer.Typer(
    cls=MessageGroup,  # `agent-tui "fix the bug"` beside the sub-commands
    help="A terminal agent shell whose edge is context management.\n\n"
    'agent-tui "MESSAGE" opens the TUI with that first message; agent-tui -p "MESSAGE" prints '
    "one answer (as `run`).",
    add_completion=False,
    rich_markup_mode=None,  # help texts name config tables like [store]: print them as written
    pretty_exceptions_enable=False,
)
app.add_typer(config_cmd.app, name="config")
app.add_typer(mcp_cmd.app, name="mcp")
app.add_typer(sessions_cmd.app, name="sessions")
app.add_typer(blobs_cmd.app, name="blobs")
app.add_typer(db_cmd.app, name="db")
app.add_typer(trust_cmd.app, name="trust")
app.command("run")(run_cmd.run)
app.command("loop")(loop_cmd.loop)
app.command("acp")(acp_cmd.acp)
app.command("serve")(serve_cmd.serve)


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
    resume: str | None = typer.Option(
        None, "--resume", "-r", help="Resume a session by id (as --session); with no id, pick one."
    ),
    sandbox: str | None = typer.Option(
        None, "--sandbox", help="Command sandbox: workspace-write, read-only or off."
    ),
    trust: bool = typer.Option(
        False, "--trust", help="Trust this folder's .agent-tui.toml for this run (see `agent-tui trust`)."
    ),
    print_: bool = typer.Option(
        False, "--print", "-p", help='Print one answer and exit, no TUI (agent-tui -p "MESSAGE" = run).'
    ),
    output_format: str = typer.Option("text", "--output-format", help="With -p: text, json or stream-json."),
    yes: bool = typer.Option(False, "--yes", "-y", help="With -p: allow every tool without asking."),
    max_turns: int | None = typer.Option(
        None, "--max-turns", min=1, help="With -p: stop after N model calls."
    ),
    max_budget_usd: float | None = typer.Option(
        None, "--max-budget-usd", min=0.0, help="With -p: stop once the session cost reaches X USD."
    ),
    attach: str | None = typer.Option(
        None, "--attach", help="Open the TUI over a session `agent-tui serve` holds (its URL)."
    ),
    token: str | None = typer.Option(
        None, "--token", help="With --attach: the server's bearer token (else AGENT_TUI_TOKEN or its file)."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Open the TUI (when no sub-command is given)."""
    if ctx.invoked_subcommand is not None or print_:
        gc_pause.resume()  # only the TUI keeps the collector off until its warm-up ends
    if ctx.invoked_subcommand is not None:
        return
    import sys

    first = message(ctx)
    session = session or resume
    if attach is not None:
        from agent_tui.frontends.cli.attach_cmd import launch_attached, refuse_local_options  # lazy: start-up

        local = {"--model": model, "--api-base": api_base, "--context-window": context_window}
        local |= {"--max-output-tokens": max_output_tokens, "--sandbox": sandbox, "a message": first}
        refuse_local_options({**local, "--continue": continue_, "--trust": trust, "--print": print_})
        setup_logging()
        code = launch_attached(attach, token=token, session_id=session, db=db)
        if code:
            raise typer.Exit(code)
        return
    if print_:
        run_with(
            run_cmd.run,
            # No message: what is piped in (`git diff | agent-tui -p`), else run's own error.
            prompt=first if first is not None else (None if sys.stdin.isatty() else "-"),
            model=model,
            api_base=api_base,
            context_window=context_window,
            max_output_tokens=max_output_tokens,
            db=db,
            continue_=continue_,
            session=session,
            sandbox=sandbox,
            trust=trust,
            yes=yes,
            output_format=output_format,
            max_turns=max_turns,
            max_budget_usd=max_budget_usd,
        )
        return
    if yes or output_format != "text" or max_turns is not None or max_budget_usd is not None:
        fail("--yes, --output-format, --max-turns and --max-budget-usd go with -p (print mode) or `run`", 2)

    setup_logging()
    shutdown.install()  # SIGTERM / SIGHUP: running turns cancelled, exit 143 / 129
    overrides = model_overrides(model, api_base, context_window, max_output_tokens, db, sandbox)
    loaded = load_or_fail(overrides, trusted=trust)
    from agent_tui.frontends.cli.tui import launch_tui  # lazy: start-up

    code = launch_tui(
        loaded.config,
        continue_=continue_,
        session_id=session,
        loaded=loaded,
        overrides=overrides,
        first_message=first,
    )
    if code:
        raise typer.Exit(code)


def bare_resume(argv: list[str]) -> list[str]:
    """`agent-tui -r` with no id opens the session picker, as `claude -r` does: the option is
    given an empty id (which `launch` takes for "pick one"). Only for the TUI; `run -r` still
    needs its id."""
    out = list(argv)
    for i, word in enumerate(out):
        if word == "run" or word == "--":
            break
        if word in ("-r", "--resume") and (i + 1 == len(out) or out[i + 1].startswith("-")):
            out[i] = "--resume="
    return out


def main() -> None:
    """Run the command; anything unexpected is one line naming the log, never a traceback."""
    import sys

    try:
        app(args=bare_resume(sys.argv[1:]))
    except SystemExit as exc:
        _bounded_exit(exc.code)
        raise
    except KeyboardInterrupt:
        _bounded_exit(130)
        raise SystemExit(130) from None
    except Exception as exc:
        import logging
        import sys

        logging.getLogger("agent_tui.frontends.cli.main").exception("unexpected failure")
        text = one_line(exc, 300)
        sys.stderr.write(f"agent-tui: {type(exc).__name__}: {text} (details in {current_log()})\n")
        _bounded_exit(1)
        raise SystemExit(1) from None


def _bounded_exit(code: object) -> None:
    """No command group outlives us, and interpreter shutdown cannot hang the exit."""

    children.kill_all()
    shutdown.arm_exit_deadline(code if isinstance(code, int) else 0 if code is None else 1)


if __name__ == "__main__":
    main()
