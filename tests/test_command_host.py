"""Slash commands reach their tab through the `CommandHost` protocol (frontends/tui/command_host.py) and the
session's public methods: read from the source, like the import contract."""

from __future__ import annotations

import ast
from pathlib import Path

from testkit.import_graph import edges

ROOT = Path(__file__).resolve().parent.parent
UI = ROOT / "agent_tui" / "frontends" / "tui"
COMMAND_MODULES = (
    "slash",
    "session_commands",
    "status_commands",
    "task_commands",
    "permissions_cmd",
    "command_output",
    "custom_commands",
)
"""The registry and every module holding slash-command handlers."""


def test_command_modules_import_no_widget_and_not_the_app():
    """No command module imports the App, its mixins or a widget (TYPE_CHECKING and lazy
    imports included): they see the tab as a CommandHost."""
    sources = {f"agent_tui.frontends.tui.{name}" for name in COMMAND_MODULES}
    above = ("agent_tui.frontends.tui.app", "agent_tui.frontends.tui.widgets")
    found = [
        f"{e.source}:{e.line} imports {e.target}"
        for e in edges(ROOT, "agent_tui")
        if e.source in sources and e.target.startswith(above)
    ]
    assert found == []


def test_command_modules_touch_no_private_attribute():
    """No handler reads or writes a private attribute of the view, the session or the app
    (`view._set_title`, `session._x`): they use public methods."""
    found = []
    for name in COMMAND_MODULES:
        path = UI / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in ("view", "session", "app", "host")
            ):
                found.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    assert found == []


def test_handlers_never_downcast_the_app():
    """No command module names `AgentApp` or reaches `view.app` (the App is `host.actions`)."""
    found = []
    for name in COMMAND_MODULES:
        path = UI / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and node.id == "AgentApp":
                found.append(f"{path.name}:{node.lineno} AgentApp")
            if isinstance(node, ast.Attribute) and node.attr == "app" and isinstance(node.value, ast.Name):
                found.append(f"{path.name}:{node.lineno} {node.value.id}.app")
    assert found == []
