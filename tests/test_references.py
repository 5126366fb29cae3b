"""What the code and the tests point a reader to exists: a test file a docstring names, a
document (CONTRIBUTING.md, CHANGELOG.md…) a comment sends them to."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_FILE = re.compile(r"\btests/((?:support/)?test_\w+\.py|support/\w+\.py)")
DOCUMENT = re.compile(r"\b([A-Z][A-Z_]+\.md)\b")
OF_A_PROJECT = frozenset({"AGENTS.md", "AGENT.md", "CLAUDE.md", "SKILL.md", "NAME.md"})
"""Files the agent reads in the user's project (rules, skills), not documents of this repository."""


def _sources() -> list[Path]:
    return [*ROOT.joinpath("agent_tui").rglob("*.py"), *ROOT.joinpath("tests").glob("test_*.py")]


def test_named_test_files_exist():
    """A module that says which test holds its promise names a file that is there."""
    missing = {
        f"{path.relative_to(ROOT)}: tests/{name}"
        for path in ROOT.joinpath("agent_tui").rglob("*.py")
        for name in TEST_FILE.findall(path.read_text(encoding="utf-8"))
        if not (ROOT / "tests" / name).exists()
    }
    assert not missing, sorted(missing)


def test_named_documents_exist():
    """A document the code or a test refers to exists (the module-size test once sent readers to a
    style guide the repository did not have)."""
    missing = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in _sources()
        for name in DOCUMENT.findall(path.read_text(encoding="utf-8"))
        if name not in OF_A_PROJECT and not (ROOT / name).exists()
    }
    assert not missing, sorted(missing)
