"""Fixtures for tests that drive the real agent loop: a strict local OpenAI-compatible server,
a temp database and a workspace, wired by the same factory the CLI uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.config import Config, load_config
from testkit.fake_openai import FakeOpenAI


def make_config(
    server: FakeOpenAI, db: Path, window: int = 32_000, *, cwd: Path | None = None, **sections: Any
) -> Config:
    """The config a user of `server` would write; `cwd` is where agent-tui runs (the project
    whose `.agent-tui.toml` is read and written), by default the database's folder."""
    overrides: dict[str, dict[str, Any]] = {
        "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": window},
        "store": {"db": str(db)},
    }
    for name, values in sections.items():
        overrides.setdefault(name, {}).update(values)
    return load_config(overrides=overrides, cwd=cwd or db.parent, env={}).config


@pytest.fixture
def server():
    with FakeOpenAI(window=32_000) as srv:
        yield srv


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


async def collect(events) -> list:
    return [event async for event in events]


def of_type(events: list, cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]


def run_agent_tui(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`agent-tui ARGS` as a user runs it in `cwd` (this tree's code, via PYTHONPATH)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def server_flags(server: FakeOpenAI, db: Path, window: int = 32_000) -> list[str]:
    """The command-line flags that point a run at `server` with its own database."""
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
