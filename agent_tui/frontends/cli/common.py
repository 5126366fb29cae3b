"""Helpers every command shares: one-line errors instead of tracebacks, config loading."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, NoReturn

import typer

from agent_tui.base.visible_text import visible
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import ConfigError, LoadedConfig, load_config
from agent_tui.runtime import shutdown
from agent_tui.runtime.logs import current_log

log = logging.getLogger("agent_tui.frontends.cli.main")


def echo_visible(text: str, *, err: bool = False) -> None:
    """Print text that came from a model, a tool or the store: control characters shown."""

    typer.echo(visible(text), err=err)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one line to stderr and exit; the traceback (if any) is already in the log."""
    echo_visible(f"agent-tui: {message}", err=True)
    raise typer.Exit(code)


def fail_startup(message: str, code: int = 1) -> NoReturn:
    """`fail` for start-up problems: the one line also names the log file."""

    if logging.getLogger("agent_tui").handlers:  # else Python's last-resort handler prints it
        log.error("start-up failed: %s", message)
    fail(f"{message} (log: {current_log()})", code)


def load_or_fail(
    overrides: dict[str, dict[str, Any]] | None = None,
    cwd: Path | None = None,
    *,
    trusted: bool | None = None,
    notify: bool = False,
) -> LoadedConfig:
    """The merged config, or a one-line error. `trusted=True` is `--trust`; `notify` prints the
    trust notices (what the project file may not do) on stderr."""
    try:
        loaded = load_config(rule_words=SHIPPED_WORDS, overrides=overrides, cwd=cwd, trusted=trusted or None)
    except ConfigError as exc:
        fail_startup(str(exc), 2)
    if notify:
        for line in loaded.notices:
            typer.echo(f"agent-tui: {line}", err=True)
    return loaded


def model_overrides(
    model: str | None = None,
    api_base: str | None = None,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
    db: Path | None = None,
    sandbox: str | None = None,
) -> dict[str, dict[str, Any]]:
    """CLI flags as a config layer (None means: not given)."""
    return {
        "model": {
            "name": model,
            "api_base": api_base,
            "context_window": context_window,
            "max_output_tokens": max_output_tokens,
        },
        "store": {"db": str(db) if db else None},
        "sandbox": {"mode": sandbox},
    }


def run_headless(work: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """`asyncio.run(work())` where SIGTERM / SIGHUP cancel it like Ctrl-C does; returns the exit
    code: work's own, 130 for Ctrl-C, 143 / 129 for the signals (see shutdown.py)."""
    import asyncio

    guard = shutdown.install()

    async def main() -> int:
        task = asyncio.current_task()
        assert task is not None
        guard.attach(asyncio.get_running_loop(), lambda _signum: task.cancel())
        try:
            return await work()
        finally:
            guard.detach()

    try:
        code = asyncio.run(main())
    except KeyboardInterrupt:
        code = 130
    except asyncio.CancelledError:
        code = guard.exit_code or 130
    return guard.exit_code or code


def is_piped() -> bool:
    return not sys.stdout.isatty()


SANDBOX_HELP = "Command sandbox: workspace-write, read-only or off (default from [sandbox] mode)."


def sandbox_notice(services: Any) -> None:
    """The one start-up line when a sandbox was asked for and bwrap cannot provide it."""
    sandbox = getattr(services, "sandbox", None)
    if sandbox is not None and sandbox.notice:
        typer.echo(f"agent-tui: {sandbox.notice}", err=True)
    for line in getattr(services, "notices", ()):  # malformed hook and skill files
        typer.echo(f"agent-tui: {line}", err=True)
