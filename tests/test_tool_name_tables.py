"""No table of tool names outside the tools' own declarations (issue 39): a set, list, tuple or
dict literal that names two or more built-in tools is a second place a tool's behaviour lives, and
a new tool would be missed by it. The few that must stay say why here; each is checked against the
declarations elsewhere or names other programs' tools."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.builtin_tools import BUILTIN_NAMES

PACKAGE = Path(__file__).resolve().parent.parent / "agent_tui"

ALLOWED = {
    "context/compaction/calls.py": "the words other agents' and MCP servers' tools are called by, "
    "for tools that declare nothing (ours are sorted by their declared kind)",
    "frontends/cli/mcp_serve.py": "the tools of agent-tui's own MCP server (store/archive.py), not the "
    "agent's tools",
}
"""Module (relative to agent_tui/) -> why a literal naming several tools stays there."""


def name_tables(tree: ast.AST) -> list[tuple[int, set[str]]]:
    """(line, names) of each literal collection naming two or more built-in tools."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            items: list[ast.expr | None] = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = [*node.keys, *node.values]
        else:
            continue
        named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in BUILTIN_NAMES}
        if len(named) >= 2:
            found.append((node.lineno, named))
    return found


def tables_in_package() -> dict[str, list[tuple[int, set[str]]]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tables = name_tables(ast.parse(path.read_text(), str(path)))
        if tables:
            found[path.relative_to(PACKAGE).as_posix()] = tables
    return found


class TestNoToolNameTables:
    def test_no_new_table_of_tool_names(self):
        """Only the listed modules spell several tool names in one literal."""
        found = tables_in_package()
        new = {module: tables for module, tables in found.items() if module not in ALLOWED}
        assert not new, f"derive these from the tool declarations (tool_decl.py) instead: {new}"

    def test_every_allowed_table_still_exists(self):
        """An exception that is gone leaves the list, so the list only shrinks."""
        assert set(tables_in_package()) == set(ALLOWED)

    def test_the_check_finds_a_table(self):
        """The scan catches a set, a dict's keys and a tuple; one name alone is no table."""
        source = 'A = {"bash", "grep"}\nB = {"read_file": 1, "glob": 2}\nC = ("x", "edit_file")\nD = ("bash", "x")\n'
        assert [line for line, _ in name_tables(ast.parse(source))] == [1, 2]
