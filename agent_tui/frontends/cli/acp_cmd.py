"""`agent-tui acp`: agent-tui as an Agent Client Protocol agent on stdin/stdout, for editors.

Stdout is the protocol, so the very first thing done is to take it (frontends/acp/stdio.py): everything
else that would print — a stray print, a warning, a child process — goes to stderr, and logs go
to the log file. Exit 0 when the client closes stdin, 143 / 129 on SIGTERM / SIGHUP.
"""

from __future__ import annotations

import logging
from pathlib import Path

import typer

from agent_tui.frontends.cli.common import SANDBOX_HELP, model_overrides, run_headless
from agent_tui.runtime import shutdown
from agent_tui.runtime.logs import setup_logging


def acp(
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model name."),
    api_base: str | None = typer.Option(None, "--api-base", help="OpenAI-compatible base URL."),
    context_window: int | None = typer.Option(None, "--context-window", help="Window override."),
    max_output_tokens: int | None = typer.Option(None, "--max-output-tokens", help="Reply reserve override."),
    db: Path | None = typer.Option(None, "--db", help="SQLite database path."),
    sandbox: str | None = typer.Option(None, "--sandbox", help=SANDBOX_HELP),
) -> None:
    """Serve the Agent Client Protocol on stdin/stdout (Zed, JetBrains, Neovim, Emacs…)."""
    from agent_tui.frontends.acp.stdio import claim_stdio  # lazy: start-up

    fds = claim_stdio()

    log_file = setup_logging()
    _log_libraries_to(log_file)
    overrides = model_overrides(model, api_base, context_window, max_output_tokens, db, sandbox)

    from agent_tui.frontends.acp.server import serve  # lazy: heavy

    code = run_headless(lambda: serve(fds, overrides, db))
    logging.getLogger("agent_tui.frontends.acp").info("the client is gone; exiting with %d", code)
    # Everything is saved and closed: skip the interpreter's teardown (joining idle worker
    # threads, unloading a large import graph), which alone could take the editor's 2 s.

    shutdown.end_now(code)


def _log_libraries_to(log_file: Path) -> None:
    """The SDK logs on the root logger (its parse and handler errors): into our log file too,
    not onto stderr through Python's last-resort handler."""
    root = logging.getLogger()
    ours = logging.getLogger("agent_tui")
    for handler in ours.handlers:
        if isinstance(handler, logging.FileHandler) and handler not in root.handlers:
            shared = logging.FileHandler(handler.baseFilename, encoding="utf-8")
            shared.setFormatter(handler.formatter)
            shared.addFilter(lambda record: not record.name.startswith("agent_tui"))
            shared.setLevel(logging.WARNING)
            root.addHandler(shared)
