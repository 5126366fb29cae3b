"""Putting the focus where a user's keys and pastes must not get lost: on a tool line."""

from __future__ import annotations

from testkit.fake_openai import Reply
from tests.support.ui_helpers import send, settle


async def focus_a_tool_line(pilot, server, workspace) -> None:
    """One turn with one read_file call, then its line focused."""
    from agent_tui.frontends.tui.widgets.chat_items import ToolLine

    (workspace / "a.txt").write_text("x\n")
    server.enqueue(Reply(tool_calls=[("read_file", {"path": "a.txt"})]), Reply(text="done"))
    await settle(pilot)
    await send(pilot, "read a.txt")
    await settle(pilot)
    pilot.app.query_one(ToolLine).focus()
    await pilot.pause()
