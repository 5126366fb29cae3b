"""One command registry for every front end (core/commands.py): the TUI, an editor over ACP and
headless `run` offer exactly the registry's commands for their front, each either runs the
command's shared effect or binds its own action by a registry name; the editor protocol imports
nothing of the TUI; `run "/cost"` answers from the effect without asking the model."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path

from agent_tui.core import commands as registry
from agent_tui.core.commands import Front
from agent_tui.frontends.acp import slash as editor
from agent_tui.frontends.tui import slash as tui
from testkit.fake_openai import Reply
from testkit.import_graph import edges
from tests.support.extend import cli, write_user_config

ROOT = Path(__file__).resolve().parent.parent


def names(front: Front) -> set[str]:
    return {c.name for c in registry.offered(front)}


class TestOneRegistry:
    def test_names_are_unique_and_every_command_is_offered_somewhere(self):
        all_names = [c.name for c in registry.COMMANDS]
        assert len(all_names) == len(set(all_names))
        assert all(c.fronts for c in registry.COMMANDS)

    def test_the_tui_offers_exactly_the_registry_s_tui_commands(self):
        assert [c.name for c in tui.COMMANDS] == [c.name for c in registry.offered(Front.TUI)]

    def test_the_editor_offers_exactly_the_registry_s_editor_commands(self):
        offered = {c.name for c in editor.available_commands().available_commands}
        assert offered == names(Front.EDITOR)

    def test_a_front_end_action_names_a_command_that_front_offers(self):
        """A TUI or editor action bound to a name the registry does not give that front fails."""
        for actions, front in ((tui.TUI_ACTIONS, Front.TUI), (editor.EDITOR_ACTIONS, Front.EDITOR)):
            assert set(actions) <= names(front), set(actions) - names(front)

    def test_every_offered_command_has_an_effect_or_the_front_s_action(self):
        bound = {Front.TUI: set(tui.TUI_ACTIONS), Front.EDITOR: set(editor.EDITOR_ACTIONS), Front.RUN: set()}
        for front, actions in bound.items():
            unbound = [c.name for c in registry.offered(front) if c.effect is None and c.name not in actions]
            assert unbound == [], f"{front}: {unbound}"

    def test_every_effect_a_tui_or_an_editor_runs_is_an_operation(self):
        """A command with an effect that a front end offers without its own action is submitted
        to the driver (core/commands.py `as_operation`), never run with the front end as host."""
        actions = {Front.TUI: set(tui.TUI_ACTIONS), Front.EDITOR: set(editor.EDITOR_ACTIONS)}
        for front, bound in actions.items():
            left = [
                c.name
                for c in registry.offered(front)
                if c.effect is not None and c.name not in bound and registry.as_operation(c, "") is None
            ]
            assert left == [], f"{front}: {left}"

    def test_every_effect_names_a_coroutine_of_its_module(self):
        """The registry names effects without importing them (start-up): a misspelt one fails here."""
        for command in registry.COMMANDS:
            if command.effect is not None:
                module = importlib.import_module(command.effect.__module__)
                effect = getattr(module, command.effect.__name__, None)
                assert inspect.iscoroutinefunction(effect), f"/{command.name}: {command.effect.__name__}"

    def test_every_tui_action_names_a_coroutine_of_its_module(self):
        """The TUI's actions are named without importing their modules (start-up), as effects are."""
        for name, action in tui.TUI_ACTIONS.items():
            module = importlib.import_module(action.__module__)
            found = getattr(module, action.__name__, None)
            assert inspect.iscoroutinefunction(found), f"/{name}: {action.__module__}.{action.__name__}"

    def test_the_tui_s_first_frame_loads_no_effect_and_no_session_machinery(self):
        """Importing what precedes the TUI's first frame (the entry, the typer application, the
        launcher and the app) leaves the composition root, the command effects and the TUI's
        actions, undo, the sub-agents, the driver's turn, review and model switch, the provider,
        the tool registry and the store unloaded."""
        probe = (
            "import sys, agent_tui.entry, agent_tui.frontends.cli.main, agent_tui.frontends.cli.tui, agent_tui.frontends.tui.app\n"
            "print(sorted(m for m in sys.modules if m in {'agent_tui.compose.factory', 'agent_tui.agent.subagents',"
            "'agent_tui.core.command_effects', 'agent_tui.agent.undo', 'agent_tui.agent.session',"
            "'agent_tui.agent.review', 'agent_tui.extensions.invoke', 'agent_tui.llm.provider',"
            "'agent_tui.tools.registry', 'agent_tui.frontends.tui.screens.blobs', 'agent_tui.store',"
            "'agent_tui.frontends.tui.session_commands', 'agent_tui.frontends.tui.memory_editor'}))"
        )
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "[]"

    def test_parse_respects_the_front(self):
        assert registry.parse("/blobs x", Front.TUI) is not None
        assert registry.parse("/blobs x", Front.EDITOR) is None  # a screen of the TUI's
        assert registry.parse("/etc/hosts", Front.TUI) is None
        assert registry.parse("//cost", Front.RUN) is None


class TestLayering:
    def test_the_editor_protocol_imports_nothing_of_the_tui(self):
        """frontends/acp/ (lazy and TYPE_CHECKING imports included) reaches no agent_tui.frontends.tui module."""
        upward = [
            f"{e.source}:{e.line} imports {e.target}"
            for e in edges(ROOT, "agent_tui")
            if e.source.startswith("agent_tui.frontends.acp")
            and e.target.startswith("agent_tui.frontends.tui")
        ]
        assert upward == []

    def test_the_core_imports_no_front_end(self):
        reached = [
            f"{e.source}:{e.line} imports {e.target}"
            for e in edges(ROOT, "agent_tui")
            if e.source.startswith("agent_tui.core") and e.target.split(".")[1] == "frontends"
        ]
        assert reached == []


class TestHeadless:
    def test_run_answers_a_registry_command_without_the_model(self, server, workspace, tmp_path):
        write_user_config(server, tmp_path / "r.db")
        out = cli(["run", "/cost"], workspace)
        assert out.returncode == 0, out.stderr
        assert "Input" in out.stdout and "Output" in out.stdout and "tokens" in out.stdout
        assert server.requests == []

    def test_run_memory_names_the_files_and_shows_the_memories(self, server, workspace, tmp_path):
        """`run "/memory"` (an editor's /memory too) answers where the memories, rules and skills
        are, with the memories' text, without the model; `/memory rules` shows the rules file."""
        write_user_config(server, tmp_path / "r.db")
        assert cli(["run", "/remember tabs are 4 wide"], workspace).returncode == 0
        (workspace / "AGENTS.md").write_text("# Rules\nAlways run the tests.\n")
        out = cli(["run", "/memory"], workspace)
        assert out.returncode == 0, out.stderr
        assert "Memories" in out.stdout and "Skills" in out.stdout and "tabs are 4 wide" in out.stdout
        rules = cli(["run", "/memory rules"], workspace)
        assert rules.returncode == 0 and "Always run the tests." in rules.stdout
        assert server.requests == []

    def test_run_json_and_a_tui_only_command_is_a_prompt(self, server, workspace, tmp_path):
        write_user_config(server, tmp_path / "r.db")
        out = cli(["run", "--json", "/status"], workspace)
        assert out.returncode == 0, out.stderr
        line = json.loads(out.stdout.splitlines()[-1])
        assert line["type"] == "command" and "fake-model" in line["text"]
        server.enqueue(Reply(text="a theme is a colour scheme"))
        out = cli(["run", "/theme"], workspace)  # the TUI's; headless it is a prompt
        assert out.returncode == 0, out.stderr
        assert len(server.requests) == 1
