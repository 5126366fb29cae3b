"""One slash-command registry: the menu, the palette, /help and the README table come from it,
and /permissions lists session grants with saved rules and removes either at once."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.frontends.tui import slash
from agent_tui.policy.allow_rules import add_rule
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, send, settle, until, until_approval

README = Path(__file__).parent.parent / "README.md"


@pytest.fixture
def config(server, workspace, tmp_path):
    return make_config(server, tmp_path / "ui.db", cwd=workspace)


def help_text(app) -> str:
    """Everything the help screen holds, scrolled out of view or not."""
    from rich.console import Console
    from textual.widgets import Static

    console = Console(width=200, record=True, file=io.StringIO())
    for widget in app.screen.query(Static):
        console.print(widget.content)
    return console.export_text()


class TestRegistry:
    def test_readme_table_is_the_registry(self):
        text = README.read_text()
        start = text.index("<!-- commands:")
        end = text.index("<!-- /commands -->")
        lines = [line.strip() for line in text[start:end].splitlines()[1:] if line.strip()]
        assert lines == slash.readme_table(), "README's command table drifted: regenerate it"

    def test_every_command_has_a_handler_and_unique_name(self):
        names = [c.name for c in slash.COMMANDS]
        assert len(names) == len(set(names))
        for command in slash.COMMANDS:
            assert callable(command.handler), command.name
            assert command.usage.startswith(f"/{command.name}")
        assert not hasattr(slash.SlashCommand, "queued")

    async def test_menu_help_and_palette_list_every_command(self, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press("slash")
            await until(pilot, lambda: prompt.menu.display, what="the command menu")
            assert prompt.menu.option_count == len(slash.COMMANDS)
            await pilot.press("escape", "backspace")
            await pilot.press("f1")
            await settle(pilot)
            shown = help_text(app)
            for command in slash.COMMANDS:
                assert command.usage in shown, command.usage
            await pilot.press("escape")
            titles = {c.title for c in app.get_system_commands(app.screen)}
            for command in slash.COMMANDS:
                if command.palette:
                    assert command.palette in titles

    async def test_a_now_command_runs_during_a_turn_an_idle_one_waits(self, server, config, workspace):
        """/context opens at once mid-turn; /rename waits for the turn like a prompt."""
        server.enqueue(Reply(tool_calls=[("bash", {"command": "touch x"})]), Reply(text="done"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "make x")
            await until_approval(pilot)
            view = app.view
            await view.send("/rename later title")
            assert view.queue and view.queue[0] == "/rename later title"
            await pilot.press("4", "enter")
            await until(pilot, lambda: view.title == "later title", what="the queued rename")


class TestPermissions:
    async def test_session_grant_is_listed_and_removal_applies_at_once(self, server, config, workspace):
        """Allow `ls` for the session, see it in /permissions with a saved rule, remove it: the
        next `ls` asks again (it used to run unasked until the next session)."""
        add_rule("bash:git status", workspace)
        config = load_config(
            overrides={"model": config.model.__dict__, "store": {"db": config.store.db}},
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "ls -la"})]),
            Reply(text="listed"),
            Reply(tool_calls=[("bash", {"command": "ls -la"})]),
            Reply(text="listed again"),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "list")
            await until_approval(pilot)
            await pilot.press("2", "enter")
            await until(pilot, lambda: not app.view.busy, what="the first turn")
            await send(pilot, "/permissions")
            await until(pilot, lambda: "Allowed without asking" in printed(app), what="the list")
            listing = printed(app)
            assert "bash:ls" in listing and "this session" in listing
            assert "bash:git status" in listing and ".agent-tui.local.toml" in listing
            await send(pilot, "/permissions remove bash:ls")
            await until(pilot, lambda: "Removed bash:ls" in printed(app), what="the removal")
            await send(pilot, "list again")
            await until_approval(pilot)  # asked again: the grant is gone now, not next session
            await pilot.press("1", "enter")
            await until(pilot, lambda: not app.view.busy, what="the second turn")
