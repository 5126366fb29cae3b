"""Helpers for the extension tests (commands, skills, hooks, trust of project files): a real
`agent-tui` subprocess, the user's config pointing at a local fake server, and the TUI app built
the way `agent-tui` builds it in a folder (trust question included)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.runtime import paths
from testkit.fake_openai import FakeOpenAI


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m agent_tui ARGS` in `cwd` (the tree on PYTHONPATH)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def events_of(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """The `--json` events a run printed."""
    return [json.loads(line) for line in out.stdout.splitlines()]


def write_user_config(server: FakeOpenAI, db: Path, extra: str = "") -> None:
    """The user's config: the fake server's model in a 32k window, its own store."""
    path = paths.user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[model]\nname = "openai/fake-model"\napi_base = "{server.base_url}"\ncontext_window = 32000\n'
        f'[store]\ndb = "{db}"\n[tools]\ndeny_ends_turn = false\n{extra}'
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def trusting_app(server: FakeOpenAI, workspace: Path, db: Path) -> Any:
    """The app as `agent-tui` builds it in `workspace`: it asks the trust question when the
    folder holds settings that wait for trust."""
    from agent_tui.config import load_config
    from agent_tui.frontends.cli.tui import trusting_services
    from agent_tui.frontends.tui.app import AgentApp

    flags = {
        "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": 32_000},
        "store": {"db": str(db)},
    }
    loaded = load_config(overrides=flags, cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
    app: AgentApp | None = None

    def get() -> AgentApp:
        assert app is not None
        return app

    app = AgentApp(trusting_services(get, loaded, flags, workspace), workspace=workspace)
    return app


async def commands_ready(pilot: Any, name: str) -> None:
    """Wait until the app's session is open and the custom command `name` is installed."""
    from agent_tui.frontends.tui import slash
    from tests.support.ui_helpers import until

    app = pilot.app
    await until(pilot, lambda: app.view.session is not None, what="the session")
    await until(pilot, lambda: slash.lookup(name) is not None, what=f"the custom command /{name}")
