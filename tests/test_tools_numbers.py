"""`/tools` writes its token counts as the rest of the app does (`2 479`, digits grouped by
spaces), not as raw integers."""

from __future__ import annotations

import re

import pytest

from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, send, settle, until


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def test_tools_total_is_grouped(config, workspace):
    """The /tools head line groups the offered total's digits (the built-in tools offer > 999)."""
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await send(pilot, "/tools")
        await until(pilot, lambda: "tokens offered" in printed(app), what="the /tools block")
        total = sum(r.tokens for r in app.view.session.prompts.tool_table() if r.state != "deferred")
        assert total >= 1000
        head = next(line for line in printed(app).splitlines() if "tokens offered" in line)
        assert re.search(r"\b\d{1,3} \d{3} tokens offered", head), head
        assert f"{total} tokens" not in printed(app)
