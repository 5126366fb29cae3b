"""Every import of the package's own modules inside a function says why it is not at the top (issue
39): a file's dependencies are read from its top, and an import left in a function body hides one.

An in-function import of an `agent_tui` module (absolute or relative) passes only when its own
lines, or the comment line directly above it (or above the run of imports it belongs to), carry
`# lazy: <reason>` with one of the reasons in REASONS. Imports under `if TYPE_CHECKING:` are type
declarations, not lazy imports, and are not counted.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agent_tui"


@dataclass(frozen=True)
class Reason:
    """One accepted reason for an import to stand inside a function."""

    name: str
    doc: str


REASONS: tuple[Reason, ...] = (
    Reason(
        "start-up",
        "The importing module is loaded before a headless `run`'s first request (or by "
        "`agent-tui --version` / `--help`) and the imported one is not: importing it at the top "
        "would add it to every start-up (tests/test_startup_imports.py, tests/test_version.py).",
    ),
    Reason(
        "textual",
        "The imported module pulls in Textual or Rich, which a screenless caller of this module "
        "(headless `run`, `serve`, the ACP agent, context/ and store/) must not load.",
    ),
    Reason(
        "heavy",
        "The imported module pulls in a heavy third-party package (litellm, tiktoken, mcp, "
        "starlette/uvicorn, pydantic) that only this path needs.",
    ),
    Reason(
        "cycle",
        "At module initialisation the two modules would import each other half-built (the import "
        "graph has no cycle, so this is about load order only: a package `__init__` re-exporting "
        "a module that imports back through it).",
    ),
    Reason(
        "optional",
        "The imported module needs an optional dependency that may not be installed.",
    ),
)
ALLOWED_FILES: dict[str, str] = {}
"""Files not checked yet, each with the reason; the list only shrinks."""
MARK = re.compile(r"#\s*lazy:\s*([a-z-]+)")


@dataclass(frozen=True)
class LazyImport:
    path: Path
    line: int
    end: int
    group_start: int  # first line of the run of consecutive imports this one belongs to


def _is_own(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        return bool(node.level) or (node.module or "").split(".")[0] == "agent_tui"
    return any(alias.name.split(".")[0] == "agent_tui" for alias in node.names)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _bodies(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in `stmt`: bodies, else/finally blocks, handlers, match cases."""
    out: list[list[ast.stmt]] = [
        value
        for field in ("body", "orelse", "finalbody")
        if isinstance(value := getattr(stmt, field, None), list)
    ]
    out += [handler.body for handler in getattr(stmt, "handlers", [])]
    out += [case.body for case in getattr(stmt, "cases", [])]
    return out


def _walk(body: list[ast.stmt], path: Path, in_function: bool, out: list[LazyImport]) -> None:
    group_start = 0
    previous_import = False
    for stmt in body:
        is_import = isinstance(stmt, ast.Import | ast.ImportFrom)
        if is_import and not previous_import:
            group_start = stmt.lineno
        previous_import = is_import
        if in_function and isinstance(stmt, ast.Import | ast.ImportFrom) and _is_own(stmt):
            out.append(LazyImport(path, stmt.lineno, stmt.end_lineno or stmt.lineno, group_start))
        if isinstance(stmt, ast.If) and _is_type_checking(stmt):
            _walk(stmt.orelse, path, in_function, out)
            continue
        inner = in_function or isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in _bodies(stmt):
            _walk(child, path, inner, out)


def lazy_imports(package: Path = PACKAGE) -> list[LazyImport]:
    """Every import of an `agent_tui` module that stands inside a function body."""
    found: list[LazyImport] = []
    for path in sorted(package.rglob("*.py")):
        _walk(ast.parse(path.read_text(), str(path)).body, path, False, found)
    return found


def reason_of(item: LazyImport, lines: list[str]) -> str | None:
    """The `# lazy:` reason on the import's own lines or on the comment line above its run."""
    candidates = lines[item.line - 1 : item.end]
    for above in {item.line, item.group_start}:
        if above >= 2 and lines[above - 2].strip().startswith("#"):
            candidates.append(lines[above - 2])
    for text in candidates:
        if match := MARK.search(text):
            return match.group(1)
    return None


class TestLazyImports:
    def test_reasons_are_few_and_documented(self):
        """The accepted reasons are a short declared list, each with its explanation."""
        names = [r.name for r in REASONS]
        assert len(names) == len(set(names)) <= 6
        assert all(r.doc for r in REASONS)

    def test_the_walk_finds_in_function_imports_only(self, tmp_path):
        """The walk sees imports in functions, methods, nested blocks and handlers, not at the top
        or under `if TYPE_CHECKING:`."""
        pkg = tmp_path / "agent_tui"
        pkg.mkdir()
        (pkg / "m.py").write_text(
            "from agent_tui import a\n"
            "if TYPE_CHECKING:\n    from agent_tui import b\n"
            "import os\n"
            "def f():\n    import os\n    from agent_tui import c  # lazy: heavy\n"
            "class C:\n    def g(self):\n        try:\n            pass\n"
            "        except OSError:\n            from . import d\n"
            "        if True:\n            # lazy: textual\n            import agent_tui.e\n"
            "            from agent_tui import f\n"
        )
        found = lazy_imports(pkg)
        lines = (pkg / "m.py").read_text().splitlines()
        assert [(i.line, reason_of(i, lines)) for i in found] == [
            (7, "heavy"),
            (13, None),
            (16, "textual"),
            (17, "textual"),
        ]

    def test_every_in_function_import_says_why(self):
        """Each in-function import of an own module carries `# lazy: <reason>` with a known reason;
        the failure lists file:line of every one that does not."""
        allowed = {r.name for r in REASONS}
        bad: list[str] = []
        texts: dict[Path, list[str]] = {}
        for item in lazy_imports():
            if str(item.path.relative_to(ROOT)) in ALLOWED_FILES:
                continue
            lines = texts.setdefault(item.path, item.path.read_text().splitlines())
            reason = reason_of(item, lines)
            if reason not in allowed:
                where = f"{item.path.relative_to(ROOT)}:{item.line}"
                bad.append(where if reason is None else f"{where} (unknown reason {reason!r})")
        assert not bad, f"{len(bad)} in-function imports without a `# lazy: <reason>`:\n" + "\n".join(bad)

    def test_allowed_files_still_need_it(self):
        """An ALLOWED_FILES entry leaves as soon as its file has no unexplained in-function import."""
        unexplained = {
            str(item.path.relative_to(ROOT))
            for item in lazy_imports()
            if reason_of(item, item.path.read_text().splitlines()) is None
        }
        assert set(ALLOWED_FILES) <= unexplained, sorted(set(ALLOWED_FILES) - unexplained)
