"""Fixtures for tests that drive the real agent loop: a strict local OpenAI-compatible server,
a temp database and a workspace, wired by the same factory the CLI uses."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
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
    return load_config(overrides=overrides, cwd=cwd or db.parent, env={}, rule_words=SHIPPED_WORDS).config


@pytest.fixture
def server():
    with FakeOpenAI(window=32_000) as srv:
        yield srv


@pytest.fixture
async def driver(server, workspace, tmp_path):
    """A `SessionDriver` holding a new session on `server`, as `run` and the server hold one."""
    from agent_tui.compose.factory import build_services
    from agent_tui.core.driver import SessionDriver

    services = await build_services(
        make_config(server, tmp_path / "p.db", cwd=workspace), workspace=workspace
    )
    driver = SessionDriver(services, approval_timeout=30)
    driver.session = await services.new_session(driver.approver)
    yield driver
    await driver.close()
    await services.close()


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
    from tests.support.cli import run_cli

    return run_cli(args, cwd)


def server_flags(server: FakeOpenAI, db: Path, window: int = 32_000) -> list[str]:
    """The command-line flags that point a run at `server` with its own database."""
    from tests.support.cli import flags

    return flags(server, db, window)
