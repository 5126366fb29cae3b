"""The modals on their own: approval keys and prefix, help, /context, the session picker."""

from __future__ import annotations

import time

from textual.widgets import DataTable, Input, Static

from agent_tui.context.budget import ContextBudget
from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.frontends.tui.screens.dialogs import ConfirmScreen, HelpScreen, component_table
from agent_tui.frontends.tui.screens.resume import ResumeScreen, SessionRow
from agent_tui.runtime import paths
from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest
from tests.support.ui_helpers import Host, screen_text, until_armed

BASH = ApprovalRequest("bash", {"command": "git status --short"}, "git status --short", "git status")
EDIT = ApprovalRequest("edit_file", {"path": "a.py"}, "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-x\n+y\n", None)


async def answer(screen, *keys, setup=None):
    """Push `screen`, press `keys`, return what it dismissed with."""
    app = Host()
    results: list = []
    async with app.run_test(size=(120, 36)) as pilot:
        app.push_screen(screen, callback=results.append)
        await pilot.pause()
        await until_armed(pilot)
        if setup is not None:
            await setup(app, pilot)
        await pilot.press(*keys)
        await pilot.pause()
    return results


class TestApproval:
    async def test_keys(self):
        """a allows once, d and Escape deny."""
        assert await answer(ApprovalScreen(BASH), "1", "enter") == [ApprovalDecision("allow_once")]
        assert await answer(ApprovalScreen(BASH), "4", "enter") == [ApprovalDecision("deny")]
        assert await answer(ApprovalScreen(EDIT), "escape") == [ApprovalDecision("deny")]

    async def test_session_allow_uses_suggested_prefix(self):
        """s allows for the session with the suggested prefix by default."""
        assert await answer(ApprovalScreen(BASH), "2", "enter") == [
            ApprovalDecision("allow_session", "git status")
        ]

    async def test_prefix_is_editable(self):
        """The prefix field can be edited; Enter in it allows that prefix for the session."""

        async def edit(app, pilot):
            field = app.screen.query_one("#approval-prefix", Input)
            field.focus()
            field.value = ""
            await pilot.press(*"git", "enter")

        assert await answer(ApprovalScreen(BASH), setup=edit) == [ApprovalDecision("allow_session", "git")]

    async def test_whole_command_means_exact(self):
        """Leaving the whole command in the field allows only that exact command."""
        request = ApprovalRequest("bash", {"command": "make"}, "make", None)
        assert await answer(ApprovalScreen(request), "2", "enter") == [
            ApprovalDecision("allow_session", None)
        ]

    async def test_edit_shows_the_diff(self):
        """An edit's preview (the diff) is on screen; there is no prefix field."""
        app = Host()
        async with app.run_test(size=(120, 36)) as pilot:
            app.push_screen(ApprovalScreen(EDIT, where="tab 2 · cart"))
            await pilot.pause()
            assert not app.screen.query("#approval-prefix")
            text = screen_text(app)
            assert "+y" in text and "-x" in text and "Allow edit_file?" in text
            assert "tab 2 · cart" in text


class TestDialogs:
    async def test_help_names_the_log_file(self):
        """/help lists keys, commands and where the log file is; the lists scroll below the log
        line, which stays in view."""
        from textual.containers import VerticalScroll

        app = Host()
        async with app.run_test(size=(120, 36)) as pilot:
            app.push_screen(HelpScreen())
            await pilot.pause()
            text = screen_text(app)
            assert "Ctrl+T" in text and "Log file: " in text
            scroll = app.screen.query_one(VerticalScroll)
            heading = next(w for w in scroll.query(Static) if "Commands" in str(w.content))
            scroll.scroll_to_widget(heading, animate=False, top=True)
            await pilot.pause()
            text = screen_text(app)
            assert "/compact [instructions]" in text and "Log file: " in text
            log_line = app.screen.query_one("#help-log", Static).content
            assert str(paths.log_file()) in str(log_line)
            await pilot.press("escape")
            assert not isinstance(app.screen, HelpScreen)

    async def test_confirm(self):
        """y confirms, n and Escape refuse."""
        assert await answer(ConfirmScreen("Close?"), "y") == [True]
        assert await answer(ConfirmScreen("Close?"), "escape") == [False]

    def test_context_table(self):
        """/context's table shows each component's tokens and share of the effective window."""
        from io import StringIO

        from rich.console import Console

        budget = ContextBudget(
            total=200_000,
            max_output_tokens=8_000,
            system_prompt=3_112,
            skill_prompts=1_840,
            tool_descriptions=9_406,
            conversation=102_851,
        )
        console = Console(file=StringIO(), width=100)
        console.print(component_table(budget))
        text = console.file.getvalue()
        for part in ("102 851", "53.6%", "tool descriptions", "memories + skills"):
            assert part in text


class TestResumePicker:
    async def test_lists_and_picks(self):
        """Sessions show title, age and size; Enter picks the highlighted one."""
        now = time.time()
        rows = [
            SessionRow("s_1", "fix the tests", now - 300, 42, 12_000, "m"),
            SessionRow("s_2", "refactor cart", now - 7200, 8, 900, "m"),
        ]

        async def down(app, pilot):
            table = app.screen.query_one(DataTable)
            assert table.row_count == 2
            await pilot.press("down")

        assert await answer(ResumeScreen(rows, now=now), "enter", setup=down) == ["s_2"]
        assert await answer(ResumeScreen(rows, now=now), "escape") == [None]
