"""Running the real `agent-tui` CLI in a subprocess against the local fake server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from testkit.fake_openai import FakeOpenAI

ROOT = Path(__file__).parents[2]


def run_cli(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def flags(server: FakeOpenAI, db: Path, window: int = 32_000) -> list[str]:
    return [
        "--model",
        "openai/fake-model",
        "--api-base",
        server.base_url,
        "--context-window",
        str(window),
        "--db",
        str(db),
    ]
