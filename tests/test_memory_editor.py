"""`/memory` opens the chosen file in `$EDITOR` (the TUI suspends while it runs, as Claude Code
does) and what the editor saved is read again: the next request carries it. The editor here is a
small script that appends a line to the file it is given; the app is the real one, via Pilot."""

from __future__ import annotations

import json
import stat

import pytest

from agent_tui.context.memory import memories_file
from agent_tui.frontends.tui.screens.memory_picker import MemoryPicker
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, settle, until


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """$EDITOR: appends a marked line to its argument and records that it ran."""
    script = tmp_path / "fake-editor.sh"
    log = tmp_path / "editor.log"
    script.write_text(f'#!/bin/sh\necho "Always answer in French." >> "$1"\necho "$1" >> "{log}"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    return log


async def type_command(pilot, text: str) -> None:
    prompt = pilot.app.view.prompt
    prompt.focus()
    prompt.set_text(text)
    await pilot.press("enter")


def system_prompt(server) -> str:
    return json.dumps(server.requests[-1]["messages"][0])


class TestMemoryInEditor:
    async def test_rules_edited_and_read_again(self, server, config, workspace, editor):
        """`/memory rules` runs $EDITOR on AGENTS.md; the next request carries the new line."""
        (workspace / "AGENTS.md").write_text("Be brief.\n")
        server.enqueue(Reply(text="one"), Reply(text="two"))
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await type_command(pilot, "hi")
            await settle(pilot)
            assert "French" not in system_prompt(server)
            await type_command(pilot, "/memory rules")
            await until(pilot, lambda: editor.is_file(), what="the editor")
            await settle(pilot)
            assert editor.read_text().strip() == str(workspace / "AGENTS.md")
            assert "Always answer in French." in (workspace / "AGENTS.md").read_text()
            await until(
                pilot, lambda: "AGENTS.md" in printed(app) and "edited" in printed(app), what="report"
            )
            await type_command(pilot, "again")
            await settle(pilot)
            assert "Always answer in French." in system_prompt(server)

    async def test_picker_chooses_the_memories_file(self, server, config, workspace, editor):
        """`/memory` alone offers the files; Enter on Memories opens (and creates) it."""
        server.enqueue(Reply(text="ok"))
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await type_command(pilot, "/memory")
            await until(pilot, lambda: isinstance(app.screen, MemoryPicker), what="the picker")
            await pilot.press("enter")  # the first entry: the memories file
            await until(pilot, lambda: editor.is_file(), what="the editor")
            await settle(pilot)
            assert "Always answer in French." in memories_file().read_text()
            await type_command(pilot, "hi")
            await settle(pilot)
            assert "Always answer in French." in system_prompt(server)

    async def test_no_editor_says_how(self, server, config, workspace, monkeypatch):
        """Without $EDITOR or $VISUAL, `/memory rules` says which variable to set and where the
        file is; nothing runs."""
        monkeypatch.delenv("EDITOR", raising=False)
        monkeypatch.delenv("VISUAL", raising=False)
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await type_command(pilot, "/memory rules")
            await until(pilot, lambda: "$EDITOR" in printed(app), what="the hint")
            assert "AGENTS.md" in printed(app)
