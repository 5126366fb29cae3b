"""`agent-tui loop GOAL`: autonomous iterations until the goal is met, headless.

Plain mode prints one Rich progress line per iteration on stderr (and a spinner while one runs,
on a terminal) and the last iteration's answer on stdout. `--json` prints one JSON object per
loop event per line (loop_started, iteration_started, iteration_finished, summary_updated,
summary_failed, loop_finished; plus the agent's warnings and errors). Exit 0 when the model
declared the goal complete, 3 when the loop stopped without that (max iterations, stall), 1 on a
provider failure, 2 on bad config or options, 130 on Ctrl-C.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from agent_tui.frontends.cli.common import (
    SANDBOX_HELP,
    fail,
    load_or_fail,
    model_overrides,
    run_headless,
)
from agent_tui.runtime import gc_pause
from agent_tui.runtime.logs import setup_logging


def _positive(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        fail(f"{name} must be at least 1, got {value}", 2)


def loop(
    goal: str = typer.Argument(..., help="What to achieve; `-` reads it from stdin."),
    max_iterations: int | None = typer.Option(
        None, "--max-iterations", help="Stop after N iterations (default 50)."
    ),
    raw_window: int | None = typer.Option(
        None, "--raw-window", help="Newest iterations kept raw (default 5)."
    ),
    summarize_every: int | None = typer.Option(
        None, "--summarize-every", help="Regenerate the whole summary every N (default 10)."
    ),
    stall_limit: int | None = typer.Option(
        None, "--stall-limit", help="Stop after N iterations without new progress (default 3)."
    ),
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model name."),
    api_base: str | None = typer.Option(None, "--api-base", help="OpenAI-compatible base URL."),
    context_window: int | None = typer.Option(None, "--context-window", help="Window override."),
    db: Path | None = typer.Option(None, "--db", help="SQLite database path."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Allow every tool without asking."),
    trust: bool = typer.Option(False, "--trust", help="Trust this folder's .agent-tui.toml for this run."),
    sandbox: str | None = typer.Option(None, "--sandbox", help=SANDBOX_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON event per line."),
) -> None:
    """Work on GOAL iteration after iteration until it is met, each prompt bounded."""

    setup_logging()
    text = sys.stdin.read() if goal == "-" else goal
    if not text.strip():
        fail("no goal given (pass GOAL, or `-` to read it from stdin)", 2)
    for name, value in (
        ("--max-iterations", max_iterations),
        ("--raw-window", raw_window),
        ("--summarize-every", summarize_every),
        ("--stall-limit", stall_limit),
    ):
        _positive(name, value)
    overrides = model_overrides(model, api_base, context_window, None, db, sandbox)
    overrides["loop"] = {
        "max_iterations": max_iterations,
        "raw_window_size": raw_window,
        "summarize_every": summarize_every,
        "stall_limit": stall_limit,
    }
    loaded = load_or_fail(overrides, trusted=trust, notify=True)
    s = loaded.config.loop
    for name, value in (
        ("loop.max_iterations", s.max_iterations),
        ("loop.raw_window_size", s.raw_window_size),
        ("loop.summarize_every", s.summarize_every),
        ("loop.max_summary_tokens", s.max_summary_tokens),
        ("loop.stall_limit", s.stall_limit),
    ):
        _positive(name, value)
    # Ctrl-C, SIGTERM and SIGHUP stop the loop the same way (exit 130 / 143 / 129).
    with gc_pause.held():
        from agent_tui.frontends.cli.loop_run import run_loop  # lazy: start-up (the loop's machinery)

    raise typer.Exit(run_headless(lambda: run_loop(loaded.config, text, yes=yes, as_json=as_json, db=db)))
