"""The test tree's layout: a test module holds tests only; what tests share lives in tests/support/.

Importing from another test module drags that module's tests into the importer's namespace,
ties two files together by accident and hides helpers where nobody looks for them.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# Files pytest itself reads by name; everything else that is not a test module is a helper.
PYTEST_FILES = {"conftest.py", "__init__.py"}


def imports_of_test_modules(source: str) -> list[tuple[int, str]]:
    """Every import in `source` (function-level and TYPE_CHECKING ones too) of a `test_*` module."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            # `from tests import test_x` names the module in the imported names.
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        hits = [name for name in names if any(part.startswith("test_") for part in name.split("."))]
        if hits:
            found.append((node.lineno, hits[0]))
    return found


def python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__snapshots__" not in p.parts)


def test_no_test_module_imports_another():
    """No `test_*.py` (nor a support module) imports a `test_*` module: shared helpers come from tests/support."""
    offenders = [
        f"{path.relative_to(TESTS)}:{line}: imports {name}"
        for path in python_files()
        for line, name in imports_of_test_modules(path.read_text())
    ]
    assert not offenders, "import these from tests/support/ instead:\n" + "\n".join(offenders)


def test_helpers_live_only_in_support():
    """Every Python file under tests/ is a test module, a file pytest reads by name, or in tests/support/."""
    strays = [
        str(path.relative_to(TESTS))
        for path in python_files()
        if not path.name.startswith("test_")
        and path.name not in PYTEST_FILES
        and path.parent != TESTS / "support"
    ]
    assert not strays, f"move these helpers into tests/support/: {strays}"


def test_support_holds_no_tests():
    """No file in tests/support/ is named like a test module, so pytest never collects a helper twice."""
    assert not [p.name for p in (TESTS / "support").glob("test_*.py")]


def test_the_check_sees_every_import_form():
    """The checker catches plain, from-, package-relative and function-level imports of a test module."""
    source = (
        "import tests.test_a\n"
        "from tests.test_b import helper\n"
        "from tests import test_c\n"
        "from .test_d import x\n"
        "def f():\n    from tests.test_e import y\n"
        "from tests.support.cli import run_cli\n"
    )
    assert [line for line, _ in imports_of_test_modules(source)] == [1, 2, 3, 4, 6]


def test_test_files_are_named_by_subject():
    """A test file says what it tests, not which issue or lane found it (`test_ui_issue32.py`
    told a reader nothing); the docstring keeps the history."""
    import re

    by_history = [
        str(path.relative_to(TESTS))
        for path in [*python_files(), *TESTS.joinpath("__snapshots__").iterdir()]
        if re.search(r"issue_?\d+|(^|_)qa_", path.name)
    ]
    assert not by_history, f"name these by their subject: {by_history}"
