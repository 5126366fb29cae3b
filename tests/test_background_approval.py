"""The approval says when a command will run in the background (it returns at once and keeps
running), in the TUI's dialog and in the question an editor gets over ACP; a foreground command's
approval says nothing of it. Real loop, the local server, a real Textual app and a real ACP
subprocess."""

from __future__ import annotations

import asyncio

from acp import text_block

from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from testkit.fake_openai import Reply
from tests.support.acp_client import WAIT, open_agent
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, settle, until_approval

SERVE = {"command": "python3 -m http.server 8765", "background": True}


async def ask(pilot, text: str) -> None:
    prompt = pilot.app.view.prompt
    prompt.focus()
    prompt.set_text(text)
    await pilot.press("enter")


class TestTuiApproval:
    async def test_a_background_command_says_so_and_a_foreground_one_does_not(
        self, server, tmp_path, workspace
    ):
        """The dialog for `background: true` names it (returns at once, keeps running, /tasks);
        the dialog for the same command in the foreground has no such line."""
        config = make_config(server, tmp_path / "a.db", sandbox={"mode": "off"})
        # A denial ends the turn, so each prompt takes one scripted reply.
        server.enqueue(
            Reply(tool_calls=[("bash", SERVE)]),
            Reply(tool_calls=[("bash", {"command": "python3 -m http.server 8765"})]),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await ask(pilot, "serve the folder")
            await until_approval(pilot)
            await pilot.pause()
            shown = screen_text(app)
            assert "in the background" in shown and "/tasks" in shown, shown
            assert app.screen.query_one("#approval-background") is not None
            await pilot.press("4", "enter")
            await settle(pilot)
            await ask(pilot, "serve it in the foreground")
            await until_approval(pilot)
            await pilot.pause()
            assert isinstance(app.screen, ApprovalScreen) and "http.server" in screen_text(app)
            assert "in the background" not in screen_text(app)
            await pilot.press("4", "enter")
            await settle(pilot)


class TestEditorApproval:
    async def test_the_editor_is_told_the_command_runs_in_the_background(self, server, workspace, tmp_path):
        """Over ACP the permission question's text says the command runs in the background."""
        server.enqueue(Reply(tool_calls=[("bash", SERVE)]))
        async with open_agent(server, tmp_path / "e.db", workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["deny"]
            await asyncio.wait_for(conn.prompt(session_id=new.session_id, prompt=[text_block("serve")]), WAIT)
            asked, _ = client.permissions[0]
            text = "\n".join(c.content.text for c in asked.content or [] if hasattr(c.content, "text"))
            assert "python3 -m http.server 8765" in text and "in the background" in text
