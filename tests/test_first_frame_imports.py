"""What the TUI imports to draw its first frame: the app and the CLI that starts it, nothing of the
agent stack. The store, the turn loop, the driver, compaction and the tool machinery load behind
the frame (frontends/tui/warmup.py), where the user is already looking at a prompt; imported by
the app's modules they would be paid before it. Found by benchmarks/tui.py's first frame at 1.10×
wave start: a tab imported the driver to ask which event ends an operation, a compaction label
pulled in the compaction package, and a title helper filed under `store/` the whole store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BEHIND_THE_FRAME = (
    "agent_tui.store",
    "agent_tui.agent.session",
    "agent_tui.core.driver",
    "agent_tui.context.compaction",
    "agent_tui.hooks.runner",
    "agent_tui.tools.permissions",
    "agent_tui.tools.registry",
    "agent_tui.llm.provider",
    "agent_tui.compose.factory",
    "litellm",
    "httpx",
    "aiosqlite",
    "tiktoken",
)
"""Packages (or modules) none of the first frame's imports may load (a None in `sys.modules` is
an import blocked on purpose, httpx._main: not loaded)."""


def loaded_by_the_app() -> set[str]:
    code = (
        "import json, sys\n"
        "import agent_tui.frontends.cli.main, agent_tui.frontends.tui.app\n"
        "print(json.dumps(sorted(m for m, module in sys.modules.items() if module is not None)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    return set(json.loads(done.stdout))


def test_the_first_frame_loads_nothing_of_the_agent_stack():
    loaded = loaded_by_the_app()
    early = sorted(
        name for name in loaded for held in BEHIND_THE_FRAME if name == held or name.startswith(held + ".")
    )
    assert early == [], f"imported before the first frame: {early}"
