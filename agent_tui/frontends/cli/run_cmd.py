"""`agent-tui run PROMPT`: one turn headless, for scripts and CI.

Plain mode prints the final assistant text to stdout and one line per compaction or notice on
stderr. `--json` prints one JSON object per event per line (schema in docs/headless.md), the last a
`result`. Exit 0 on success, 1 on a provider or tool failure, 2 on bad config, 3 when a limit
the user set stopped the run (`--max-turns`, `--max-budget-usd`, or a budget that cannot be kept
because the model's prices are unknown), 130 on Ctrl-C, 143 on SIGTERM and 129 on SIGHUP (the
turn is cancelled and saved the same way as on Ctrl-C).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from agent_tui.base.reasoning import EFFORTS
from agent_tui.frontends.cli.common import SANDBOX_HELP, fail, load_or_fail, model_overrides, run_headless
from agent_tui.policy.permission_modes import parse_mode
from agent_tui.runtime import gc_pause
from agent_tui.runtime.logs import setup_logging

OUTPUT_FORMATS = ("text", "json", "stream-json")
"""`--output-format`: agent-tui's own text, or Claude Code's `json` / `stream-json` shapes."""


def _read_prompt(prompt: str | None) -> str:
    if prompt == "-":
        return sys.stdin.read()
    return prompt or ""


def _effort_or_fail(effort: str | None) -> dict[str, Any] | None:
    """`--effort` as `[model]` keys (None: not given). `off` also clears a configured thinking
    budget: the run goes out without any reasoning setting."""

    if effort is None:
        return None
    level = effort.strip().lower()
    if level == "off":
        return {"reasoning_effort": None, "thinking_budget_tokens": 0}
    if level not in EFFORTS:
        fail(f"--effort must be one of {', '.join(EFFORTS)} or off, got {effort!r}", 2)
    return {"reasoning_effort": level}


def run(
    prompt: str | None = typer.Argument(None, help="The prompt; `-` reads stdin."),
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model name."),
    api_base: str | None = typer.Option(None, "--api-base", help="OpenAI-compatible base URL."),
    context_window: int | None = typer.Option(None, "--context-window", help="Window override."),
    max_output_tokens: int | None = typer.Option(None, "--max-output-tokens", help="Reply reserve override."),
    session: str | None = typer.Option(None, "--session", "-s", help="Resume this session."),
    continue_: bool = typer.Option(
        False, "--continue", "-c", help="Resume the newest session of this directory."
    ),
    db: Path | None = typer.Option(None, "--db", help="SQLite database path."),
    yes: bool = typer.Option(
        False, "--yes", "-y", help="Allow every tool without asking (protected paths included)."
    ),
    trust: bool = typer.Option(
        False, "--trust", help="Trust this folder's .agent-tui.toml for this run (see `agent-tui trust`)."
    ),
    sandbox: str | None = typer.Option(None, "--sandbox", help=SANDBOX_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON event per line."),
    compact: bool = typer.Option(False, "--compact", help="Compact the session first."),
    effort: str | None = typer.Option(
        None, "--effort", help="Reasoning effort for this run: minimal, low, medium, high or off."
    ),
    output_format: str = typer.Option(
        "text",
        "--output-format",
        help="text, json or stream-json: what `claude -p` prints (see docs/headless.md).",
    ),
    resume: str | None = typer.Option(None, "--resume", "-r", help="Resume this session (as --session)."),
    handoff: bool = typer.Option(
        False,
        "--handoff",
        help="With -c/-s: continue in a new session seeded from it (summary for PROMPT, pins, tasks, refs).",
    ),
    permission_mode: str = typer.Option(
        "default",
        "--permission-mode",
        help="default, accept-edits, plan (read-only: edits and commands refused) or auto-sandboxed "
        "(sandboxed commands run unasked).",
    ),
    max_turns: int | None = typer.Option(
        None, "--max-turns", min=1, help="Stop after N model calls in the turn (exit 3)."
    ),
    max_budget_usd: float | None = typer.Option(
        None, "--max-budget-usd", min=0.0, help="Stop once the session cost reaches X USD (exit 3)."
    ),
) -> None:
    """Run one turn without the TUI and print the answer."""

    setup_logging()
    text = _read_prompt(prompt)
    if not text.strip() and not compact:
        fail("no prompt given (pass PROMPT, or `-` to read stdin)", 2)
    reasoning = _effort_or_fail(effort)
    output_format = _output_format_or_fail(output_format, as_json)
    mode = parse_mode(permission_mode)
    if mode is None:
        fail(
            f"--permission-mode must be default, accept-edits, plan or auto-sandboxed, got {permission_mode!r}",
            2,
        )
    session = session or resume
    loaded = load_or_fail(
        model_overrides(model, api_base, context_window, max_output_tokens, db, sandbox),
        trusted=trust,
        notify=True,
    )
    config = loaded.config
    if reasoning is not None:
        config = replace(config, model=replace(config.model, **reasoning))
    if max_turns is not None:
        config = replace(config, agent=replace(config.agent, max_steps=max_turns))
    # SIGTERM / SIGHUP cancel the turn like Ctrl-C (saved), then exit 143 / 129.
    with gc_pause.held():
        from agent_tui.frontends.cli.run_turn import run_turn  # lazy: start-up (the turn's machinery)

    code = run_headless(
        lambda: run_turn(
            config,
            text,
            session_id=session,
            continue_=continue_,
            yes=yes,
            as_json=as_json,
            compact_first=compact,
            db=db,
            output_format=output_format,
            mode=mode,
            handoff=handoff,
            max_turns=max_turns,
            max_budget=max_budget_usd,
        )
    )
    raise typer.Exit(code)


def _output_format_or_fail(output_format: str, as_json: bool) -> str:

    chosen = output_format.strip().lower()
    if chosen not in OUTPUT_FORMATS:
        fail(f"--output-format must be one of {', '.join(OUTPUT_FORMATS)}, got {output_format!r}", 2)
    if as_json and chosen != "text":
        fail("--json and --output-format are two output forms: choose one", 2)
    return chosen
