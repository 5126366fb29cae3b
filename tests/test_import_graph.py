"""The import graph is a checked contract: the layers point downward and no modules form a cycle.

Read from the source (testkit/import_graph.py), so lazy imports inside functions and imports under
`if TYPE_CHECKING:` count like any other: a cycle hidden by either is still a cycle.
"""

from __future__ import annotations

from pathlib import Path

from testkit.import_graph import cycles, edges, layer_violations

ROOT = Path(__file__).resolve().parent.parent

LAYERS = [
    ["__main__", "entry", "frontends.cli", "docs_gen"],
    ["frontends"],
    ["core"],
    ["autoloop"],
    ["compose"],
    ["extensions"],
    ["agent", "hooks"],
    ["tools"],
    ["llm"],
    ["store"],
    ["context"],
]
"""From the top down, one package a layer: the folders are the layers. The front ends (the TUI, the
editor protocol, the HTTP server) share one level under the command line. A module of a layer may
import its own layer and those below it. The packages in none — `base` (values and text helpers),
`runtime` (paths, logs, signals, child processes), `policy` (trust and approval rules) and `config`
— are plain data and helpers any layer may use; they import no layer. The store sits above context:
it renders stored outputs with context's pure view functions, and context never reads the store."""

PLAIN = ["hooks.spec", "hooks.sources", "agent.definitions"]
"""Settings that the config package reads while layering (to list a project's withheld hooks and agent
definitions), apart from the hooks and sub-agents that run at the agent's level. The `task` tool
runs sessions, so it lives in agent/ (task_tool.py), not with the tools below it."""

KNOWN_CYCLES: list[frozenset[str]] = []
"""Cycles that exist and are to be removed. The list may only shrink (it is empty now): a new
cycle fails the test. The last ones went with issue 29: the ui tangle when slash commands began
to act through a narrow host protocol (frontends/tui/command_host.py) instead of the session view; the
agent one when rewind, `!cmd`, the sub-agent manager and the task tool were given the narrow
protocols of agent/session_port.py; the tools one when ToolServices named a `Shells` protocol
and starting a process group moved to tools/process_group.py; the store one when a fork stopped
being a method of the sessions table it reads."""


class TestPackageGraph:
    def test_no_cycles_but_the_known_ones(self):
        """The package's strongly connected components are exactly the listed known cycles."""
        found = cycles(edges(ROOT, "agent_tui"))
        assert sorted(map(sorted, found)) == sorted(map(sorted, KNOWN_CYCLES))

    def test_layers_point_downward(self):
        """No module imports a layer above its own (see LAYERS)."""
        upward = layer_violations(edges(ROOT, "agent_tui"), LAYERS, "agent_tui", PLAIN)
        assert upward == [], "\n".join(f"{e.source}:{e.line} imports {e.target}" for e in upward)


def _package(tmp: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp


class TestChecker:
    """The checker itself fails on what it must catch (a throwaway package, not the tree)."""

    def test_type_checking_and_lazy_imports_make_a_cycle(self):
        """A cycle closed only by a TYPE_CHECKING import and a function-level import is found."""
        import tempfile

        with tempfile.TemporaryDirectory() as name:
            root = _package(
                Path(name),
                {
                    "__init__.py": "",
                    "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n",
                    "b.py": "def f():\n    from pkg import c\n",
                    "c.py": "from . import a\n",
                    "d.py": "import pkg.a\n",
                },
            )
            found = cycles(edges(root, "pkg"))
        assert found == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]

    def test_submodule_through_its_package_is_not_an_edge_to_the_package(self):
        """`from pkg import sub` inside pkg.other depends on pkg.sub, not on pkg/__init__."""
        import tempfile

        with tempfile.TemporaryDirectory() as name:
            root = _package(
                Path(name),
                {
                    "__init__.py": "from pkg.other import X\n",
                    "other.py": "from pkg import sub\nX = 1\n",
                    "sub.py": "",
                },
            )
            graph = edges(root, "pkg")
        assert {(e.source, e.target) for e in graph} == {("pkg", "pkg.other"), ("pkg.other", "pkg.sub")}
        assert cycles(graph) == []

    def test_an_upward_import_is_reported_with_its_line(self):
        """A lower layer importing a higher one is a violation naming the file's line."""
        import tempfile

        with tempfile.TemporaryDirectory() as name:
            root = _package(
                Path(name),
                {
                    "__init__.py": "",
                    "ui/__init__.py": "",
                    "store/__init__.py": "\n\nfrom pkg import ui\n",
                    "plain.py": "",
                },
            )
            found = layer_violations(edges(root, "pkg"), [["ui"], ["store"]], "pkg")
        assert [(e.source, e.target, e.line) for e in found] == [("pkg.store", "pkg.ui", 3)]
