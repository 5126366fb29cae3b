"""A project's own folders and files (`.agent-tui.toml`, `.agent-tui.local.toml`, `.agent-tui/`,
`.claude/` and what lies in them) are declared once, in agent_tui/policy/project_layout.py; every reader
(config, trust, hooks, commands, skills, agents, protected paths, the sandbox) takes them from
there, so a folder added or renamed cannot be read in one place and missed by the trust hash."""

from __future__ import annotations

import ast
from pathlib import Path

from agent_tui.agent.definitions import PROJECT_DIRS
from agent_tui.extensions.commands import command_dirs
from agent_tui.extensions.skills import skill_dirs
from agent_tui.policy import extension_files, project_layout

PACKAGE = Path(__file__).parents[1] / "agent_tui"

NAMES = {
    ".claude",
    ".agent-tui",
    ".agent-tui.toml",
    ".agent-tui.local.toml",
    "settings.json",
    "settings.local.json",
}

ELSEWHERE = {
    ("tools/sandbox_view.py", ".claude"): "the user's home: other agents' credentials the sandbox hides",
}
"""Spellings that are not a project's layout, with why."""


def spelled(path: Path) -> list[tuple[str, int]]:
    """The layout names written as string literals in `path` (docstrings are prose, not code)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.value, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in NAMES and id(node) not in prose
    ]


class TestOneDeclaration:
    def test_the_layout_names_are_spelled_only_in_project_layout(self):
        """No module but project_layout.py writes `.claude`, `.agent-tui`, the project files or
        the Claude settings files as literals (the user's-home list of the sandbox aside)."""
        found = []
        for path in sorted(PACKAGE.rglob("*.py")):
            rel = path.relative_to(PACKAGE).as_posix()
            if rel == "policy/project_layout.py":
                continue
            found += [
                f"{rel}:{line} {name!r}" for name, line in spelled(path) if (rel, name) not in ELSEWHERE
            ]
        assert found == [], "\n".join(found)

    def test_every_reader_uses_the_same_folders_in_the_same_precedence(self, tmp_path):
        """Commands and skills read `.claude/` then `.agent-tui/` (the later wins); agents look in
        `.agent-tui/` first (the first found wins): the same winner, from the same declaration,
        and the trust hash covers exactly those folders."""
        bases = project_layout.EXTENSION_BASES
        assert command_dirs(tmp_path, True)[1:] == [tmp_path / b / "commands" for b in bases]
        assert skill_dirs(tmp_path, True)[1:] == [tmp_path / b / "skills" for b in bases]
        assert list(PROJECT_DIRS) == [b / "agents" for b in reversed(bases)]
        assert set(extension_files.TREES) == {b / k for b in bases for k in ("commands", "skills", "agents")}
