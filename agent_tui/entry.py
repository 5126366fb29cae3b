"""The `agent-tui` executable's entry: answers `--version` before anything is imported.

`agent_tui.cli` builds the whole typer application (every sub-command's module) at import, which
is right for every other invocation but costs ~0.2 s of CPU for a question whose answer is one
constant. Scripts and editors ask it often (ACP clients probe the version before starting us).
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from agent_tui import __version__

        sys.stdout.write(f"agent-tui {__version__}\n")
        return
    from agent_tui import gc_pause

    gc_pause.pause()  # until the start-up's imports are done (the TUI's warm-up, or typer's pick)
    from agent_tui.cli import main as cli_main

    cli_main()
