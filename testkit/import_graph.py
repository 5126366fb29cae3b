"""The package's import graph read from the source, for the layer and no-cycle contracts.

Every `import` and `from … import` counts, wherever it stands: at the top, inside a function (a
lazy import still makes the two modules depend on each other) and under `if TYPE_CHECKING:` (a
type-only cycle is still two modules that cannot be understood apart). Importing a name from a
package counts as an edge to the package's `__init__`; importing a submodule through its package
(`from agent_tui.store import errors`) counts as an edge to the submodule only, since Python loads
the parent package first in every case and that is not a dependency either module chose.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    """One module importing another."""

    source: str
    target: str
    line: int


def modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name → file, for every module under `root/package`."""
    found: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _owner(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def edges(root: Path, package: str) -> list[Edge]:
    """Every import between two modules of `package`, with the importing line."""
    known = modules(root, package)
    out: list[Edge] = []
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                subs = [f"{origin}.{alias.name}" for alias in node.names]
                targets = [s for s in subs if s in known]
                if len(targets) < len(subs):
                    targets.append(origin)
            for target in targets:
                if not (target == package or target.startswith(package + ".")):
                    continue
                owner = _owner(target, known)
                if owner and owner != name:
                    out.append(Edge(name, owner, node.lineno))
    return out


def cycles(graph_edges: Iterable[Edge]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for edge in graph_edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def layer_violations(
    graph_edges: Iterable[Edge], layers: list[list[str]], package: str, plain: Iterable[str] = ()
) -> list[Edge]:
    """Edges from a module to a module of a layer listed *before* its own (higher up).

    `layers` lists, from the top layer down, the sub-packages or modules of each layer (a dotted
    entry places one module of a package elsewhere than the rest of it).
    A module of none of them is shared plain data: every layer may import it, and it may import
    no layer. `plain` names dotted modules inside a layer's package that are plain data all the
    same (a package whose settings part config.py reads, while the rest of it runs at a layer).
    """
    ranks = {name: rank for rank, group in enumerate(layers) for name in group}
    plain_names = set(plain)

    def rank(module: str) -> int:
        parts = module.removeprefix(package + ".").split(".")
        for n in range(len(parts), 0, -1):  # the most specific entry wins
            name = ".".join(parts[:n])
            if name in plain_names:
                return len(layers)
            if name in ranks:
                return ranks[name]
        return len(layers)

    return [e for e in graph_edges if e.source != package and rank(e.target) < rank(e.source)]
