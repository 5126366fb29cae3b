"""The version moves with each wave: one source (`agent_tui.__version__`), read by the package
metadata and printed by `--version`, and CHANGELOG.md's newest entry is that version."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import agent_tui

ROOT = Path(__file__).resolve().parent.parent


def test_version_prints_the_package_version():
    """`agent-tui --version` says the version the package declares, not a stale constant."""
    out = subprocess.run(
        [sys.executable, "-m", "agent_tui", "--version"], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == f"agent-tui {agent_tui.__version__}"
    assert agent_tui.__version__ != "0.1.0"


def test_the_package_metadata_reads_the_same_version():
    """pyproject.toml takes the version from the package instead of keeping its own."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "agent_tui.__version__"


def test_the_changelog_leads_with_this_version():
    """CHANGELOG.md's newest entry is the version being built (0.4.0 for 0.4.0.dev0)."""
    newest = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert newest is not None
    assert agent_tui.__version__.startswith(newest.group(1))
