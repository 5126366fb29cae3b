"""What the user typed is what they see again: a UserPromptSubmit hook's `<hook-context>` block,
an `@file`'s attachment and a custom command's expanded prompt go to the model, never back into
the input (/rewind), the rewind and fork lists, the chat after a resume, or a session's title.
Before, /rewind put the hook's block back into the input and sending it again doubled it."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from agent_tui.base.user_command_text import (
    attachment_block,
    custom_command_text,
    hook_context_block,
    typed_text,
)
from agent_tui.frontends.tui import slash
from agent_tui.frontends.tui.screens.rewind import RewindScreen
from agent_tui.frontends.tui.transcript import UserEntry
from agent_tui.policy import trust
from agent_tui.runtime import paths
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until, until_armed

HOOK = """[[hooks.UserPromptSubmit]]
command = "echo 'branch: main, 3 files changed'"
"""


@pytest.fixture
def config(server, tmp_path, workspace):
    """The user's own hook (hooks/sources.py reads each file: the user's always run)."""
    path = paths.user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HOOK)
    return make_config(server, tmp_path / "ui.db", cwd=workspace)


def user_texts(app) -> list[str]:
    return [e.text for e in app.view.chat.entries if isinstance(e, UserEntry)]


class TestRewindAndResume:
    async def test_rewind_refills_the_input_with_what_was_typed(self, server, config, workspace):
        server.enqueue(Reply(text="first answer"), Reply(text="second answer"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "fix the cart total")
            await settle(pilot)
            assert "branch: main" in server.requests[-1]["messages"][-1]["content"]  # the model got it
            assert "hook UserPromptSubmit" not in screen_text(app)  # it passed: no line for it
            await send(pilot, "and the tax")
            await settle(pilot)
            await send(pilot, "/rewind")
            await until(pilot, lambda: isinstance(app.screen, RewindScreen), what="the picker")
            table = app.screen.query_one(DataTable)
            listed = " ".join(str(table.get_row_at(i)) for i in range(table.row_count))
            assert "and the tax" in listed and "hook-context" not in listed and "branch" not in listed
            await pilot.press("enter")
            await until_armed(pilot)  # the choice dialog takes a deliberate Enter (walls)
            await pilot.press("enter")
            await until(pilot, lambda: app.view.prompt.text != "", what="the text")
            assert app.view.prompt.text == "and the tax"
            await settle(pilot)
            server.enqueue(Reply(text="again"))
            await pilot.press("enter")
            await settle(pilot)
            sent = server.requests[-1]["messages"][-1]["content"]
            assert sent.count("hook-context") == 2  # one block, opened and closed: not doubled
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert user_texts(again) == ["fix the cart total", "and the tax"]
            assert "hook-context" not in screen_text(again)
            info = await again.view.session.store.sessions.get(session_id)
            assert info is not None and info.title == "fix the cart total"

    async def test_resumed_custom_command_shows_its_invocation(self, server, tmp_path, workspace):
        (workspace / ".claude" / "commands").mkdir(parents=True)
        (workspace / ".claude" / "commands" / "review.md").write_text(
            "---\nallowed-tools: Bash(echo:*)\n---\nReview $ARGUMENTS for bugs. Changed: !`echo cart.py`\n"
        )
        trust.add(workspace)
        config = make_config(server, tmp_path / "c.db", cwd=workspace)
        server.enqueue(Reply(text="looks fine"))
        app = make_app(config, workspace)
        try:
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                await send(pilot, "/review auth")
                await settle(pilot)
                sent = server.requests[-1]["messages"][-1]["content"]
                assert "Review auth for bugs. Changed: cart.py" in sent
                assert "[exit code" not in sent  # the output, not the tool's status line
                session_id = app.view.session.session_id
            again = make_app(config, workspace, session_id=session_id)
            async with again.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                assert user_texts(again) == ["/review auth"]
        finally:
            slash.set_custom([])


class TestTypedText:
    def test_every_block_added_for_the_model_comes_off(self):
        prompt = (
            "see @a.py" + attachment_block("a.py", "x = 1\n") + hook_context_block("UserPromptSubmit", "hi")
        )
        assert typed_text(prompt) == "see @a.py"
        assert typed_text(custom_command_text("/review  auth", "Review auth.")) == "/review auth"
        assert typed_text("plain\n\n<attachment is a word here") == "plain\n\n<attachment is a word here"
