"""The `agent-tui` executable's entry: answers `--version` before anything is imported.

`agent_tui.frontends.cli.main` builds the whole typer application (every sub-command's module) at import, which
is right for every other invocation but costs ~0.2 s of CPU for a question whose answer is one
constant. Scripts and editors ask it often (ACP clients probe the version before starting us).
"""

from __future__ import annotations

import sys

PRELOADS = ("price-map", "httpx-preload", "tokenizer", "litellm-import")
"""The daemon threads that import C extensions while the app starts (llm/startup.py, tokens.py,
llm/lazy.py). A run that fails at once (a damaged database, a session open elsewhere) can reach
interpreter shutdown while one is mid-import; the suite saw such exits end in SIGSEGV twice."""


def _let_preloads_finish(timeout: float = 5.0) -> None:
    """Wait (briefly) for the start-up imports still running: normally long done, so free."""
    import threading
    import time

    deadline = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread.name in PRELOADS and thread.is_alive():
            thread.join(max(0.0, deadline - time.monotonic()))


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from agent_tui import __version__  # lazy: start-up

        sys.stdout.write(f"agent-tui {__version__}\n")
        return
    from agent_tui.runtime import gc_pause  # lazy: start-up

    gc_pause.pause()  # until the start-up's imports are done (the TUI's warm-up, or typer's pick)
    from agent_tui.frontends.cli.main import main as cli_main  # lazy: start-up

    try:
        cli_main()
    finally:
        _let_preloads_finish()
