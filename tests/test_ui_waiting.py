"""A server that does not answer, seen from the TUI: the working line counts the wait and says
how to stop it; the configured limit then ends the turn with its one-line error (issue 21 item 6)."""

from __future__ import annotations

import dataclasses

from agent_tui.frontends.tui.widgets.status import WorkingLine
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until


async def test_waiting_line_counts_and_the_limit_ends_the_turn(server, workspace, tmp_path, monkeypatch):
    """The working line shows the seconds waited and how to stop; the limit's error follows."""
    config = make_config(server, tmp_path / "wait.db")
    config = dataclasses.replace(
        config, provider=dataclasses.replace(config.provider, first_byte_timeout=1.5)
    )
    server.enqueue(Reply(hang=True), Reply(hang=True))
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await send(pilot, "hello?")
        await until(pilot, lambda: "Esc to interrupt" in screen_text(app), what="the waiting line")
        assert "thinking · " in screen_text(app) and " s · Esc to interrupt" in screen_text(app)
        await until(
            pilot, lambda: "provider.first_byte_timeout" in screen_text(app), timeout=30, what="the error"
        )
        await settle(pilot)  # the turn ends (a retry may still be under way when the error shows)
        assert not app.query_one(WorkingLine).display
    assert 1 <= len(server.requests) <= 2  # retried once at most
