"""Running the real `agent-tui` CLI in a subprocess against the local fake server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from testkit.fake_openai import FakeOpenAI

if TYPE_CHECKING:
    from agent_tui.base.messages import Message

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


def stored_transcript(db: Path, session_id: str) -> list[Message]:
    """The transcript a run left in `db`, read back through the real store."""
    import asyncio

    from agent_tui.store import open_store

    async def read() -> list[Message]:
        store = await open_store(db)
        try:
            return await store.sessions.transcript(session_id)
        finally:
            await store.close()

    return asyncio.run(read())
