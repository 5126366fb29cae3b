"""Shared fixtures: every test gets its own AGENT_TUI_HOME so nothing touches the real home."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "agent-tui-home"
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    monkeypatch.delenv("AGENT_TUI_MODEL", raising=False)
    return home


# Shared fixtures (the strict local server, a workspace, the UI session set-up) live in these
# modules; pytest loads them for every test so no module has to import fixtures by name.
pytest_plugins = [
    "tests.support.agent_fixtures",
    "tests.support.anthropic_fixtures",
    "tests.support.ui_session_fixtures",
    "tests.support.sandbox_fixtures",
]


def pytest_report_header() -> str:
    """Say once whether the sandbox tests run against a real bwrap, and why not when they cannot."""
    from agent_tui.tools.sandbox import probe

    found = probe()
    if found.bwrap:
        return f"sandbox: tests run against the real bwrap ({found.bwrap})"
    return f"sandbox: tests SKIPPED, {found.problem} (install bubblewrap to run them)"
