"""The TUI attached to a served core (`agent-tui --attach`): a real `agent-tui serve` process, a
real Textual app driven by Pilot. A turn whose tool call waits for the attached TUI's approval,
the meter showing the served session's budget, the blob browser and /context over the server's
stored outputs and report; a second client's turn shown live; a dropped connection mid-turn that
loses and doubles no event in the chat."""

from __future__ import annotations

import pytest

from agent_tui.server.client import AgentClient
from agent_tui.server.remote import RemoteDriver
from agent_tui.ui.attach_app import AttachApp
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.blobs import BlobsScreen
from agent_tui.ui.screens.remote_context import RemoteContextScreen
from agent_tui.ui.transcript import AgentEntry, UserEntry
from agent_tui.ui.widgets.meter import ContextMeter
from testkit.fake_openai import Reply
from tests.support.serve import Served, start_serve
from tests.support.ui_helpers import screen_text, until, until_armed

WAIT = 60.0


@pytest.fixture
def served(server, workspace, tmp_path):
    running = start_serve(server, tmp_path / "serve.db", workspace)
    yield running
    running.stop()


async def attached(served: Served, session: str | None = None) -> AttachApp:
    async def opener() -> RemoteDriver:
        client = AgentClient(served.url, served.token)
        driver = await RemoteDriver.attach(client, session)
        driver.owns_client = True
        return driver

    return AttachApp(opener, where=served.url)


async def type_and_send(pilot, text: str) -> None:
    prompt = pilot.app.view.prompt
    prompt.focus()
    prompt.set_text(text)
    await pilot.press("enter")


def entries(app: AttachApp, kind: type) -> list:
    return [e for e in app.view.query_one("#chat").entries if isinstance(e, kind)]


class TestAttachedTui:
    async def test_approval_meter_blob_browser_and_context_over_the_server(
        self, server, served: Served, workspace
    ):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 3000"})]), Reply(text="counted to 3000"))
        app = await attached(served)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            meter = app.view.query_one(ContextMeter)
            await until(pilot, lambda: meter.budget is not None, WAIT, "the meter's first budget")
            first = meter.budget.used
            await type_and_send(pilot, "count to 3000")
            await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), WAIT, "the approval dialog")
            assert "seq 1 3000" in screen_text(app)
            await until_armed(pilot)
            await pilot.press("1", "enter")  # allow once
            await until(pilot, lambda: not app.view.busy, WAIT, "the turn's end")
            assert [e.text for e in entries(app, UserEntry)] == ["count to 3000"]
            assert [e.text for e in entries(app, AgentEntry)] == ["counted to 3000"]
            assert meter.budget.used > first  # the served session's measurements reach the meter
            assert "%" in screen_text(app)

            await type_and_send(pilot, "/blobs")
            await until(pilot, lambda: isinstance(app.screen, BlobsScreen), WAIT, "the blob browser")
            browser = app.screen
            await until(pilot, lambda: len(browser.rows) == 1, WAIT, "the stored output listed")
            (row,) = browser.rows.values()
            assert row.ref.tool_name == "bash" and row.ref.line_count == 3000
            viewer = browser.viewer
            await until(
                pilot, lambda: viewer.source is not None and viewer.settled, WAIT, "the newest opened"
            )
            viewer.goto(2999)  # read from the server a window at a time
            await until(pilot, lambda: viewer.settled and "2999" in screen_text(app), WAIT, "line 2999")
            assert "3000" in screen_text(app)
            await pilot.press("escape", "escape")
            await until(pilot, lambda: not isinstance(app.screen, BlobsScreen), WAIT, "the browser closed")

            await type_and_send(pilot, "/context")
            await until(pilot, lambda: isinstance(app.screen, RemoteContextScreen), WAIT, "/context")
            text = screen_text(app)
            assert "bash seq 1 3000" in text and "If you compact now" in text
