"""Fixtures for the sandbox tests: the real bwrap (or the reason it cannot run) and a workspace
with the paths the sandbox protects."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.sandbox import Probe, probe

FOUND = probe()


@pytest.fixture
def bwrap() -> Probe:
    """The real bwrap; where the machine cannot run it the test says why (see the report header)."""
    if FOUND.bwrap is None:
        pytest.skip(f"sandbox tests need bubblewrap: {FOUND.problem}")
    return FOUND


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".agent-tui.toml").write_text("# project config\n")
    return root.resolve()
