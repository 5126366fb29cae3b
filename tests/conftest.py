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
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)  # Claude Code's own settings stay out
    return home


@pytest.fixture(autouse=True, scope="session")
def exact_token_counts():
    """Sessions count with a lazy counter that estimates until tiktoken is loaded (issue 31); in
    one test process whether it is loaded would depend on which tests ran first, so figures a
    test shows (the meter in a snapshot) would too. Loaded up front, every in-process count is
    tiktoken's; tests/test_tokens_lazy.py empties the loaded set to test the estimating path."""
    from agent_tui.base import tokens

    for name in ("cl100k_base", "o200k_base"):
        tokens._load_encoder(name)


# Shared fixtures (the strict local server, a workspace, the UI session set-up) live in these
# modules; pytest loads them for every test so no module has to import fixtures by name.
pytest_plugins = [
    "tests.support.agent_fixtures",
    "tests.support.anthropic_fixtures",
    "tests.support.ui_session_fixtures",
    "tests.support.sandbox_fixtures",
    "tests.support.web_pages",
    "tests.support.snapshot_basis",
]


def pytest_report_header() -> str:
    """Say once whether the sandbox tests run against a real bwrap, and why not when they cannot."""
    from agent_tui.tools.sandbox import probe

    found = probe()
    if found.bwrap:
        return f"sandbox: tests run against the real bwrap ({found.bwrap})"
    return f"sandbox: tests SKIPPED, {found.problem} (install bubblewrap to run them)"


UNTESTED_MARKS = ("sandbox tests need bubblewrap", "wall untested")
"""Skip reasons that mean a wall went untested (tests/support/sandbox_fixtures.py and the walls'
own tests): `-q` prints no reasons, so the run ends with one line naming them all."""


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    untested = sorted(
        {
            report.nodeid.split("::")[0].removeprefix("tests/") + "::" + report.nodeid.split("::")[-1]
            for report in terminalreporter.stats.get("skipped", [])
            if any(mark in str(report.longrepr) for mark in UNTESTED_MARKS)
        }
    )
    if untested:
        terminalreporter.write_line(
            f"WALLS LEFT UNTESTED ({len(untested)}): " + ", ".join(untested), red=True, bold=True
        )
