"""A resumed chat keeps its compaction lines where they happened (issue 43 low 18): it showed
one "Compacted earlier" line at the bottom, so the reader could not tell which turns came after
the compaction, nor open its record."""

from __future__ import annotations

from agent_tui.frontends.tui.widgets.chat_items import NoticeItem, UserItem
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, send, settle


async def test_a_resumed_chat_shows_each_compaction_at_its_place(server, tmp_path, workspace):
    server.responder = lambda request: Reply(
        text="<retain>notes</retain><summary>Two questions were asked.</summary>"
    )
    config = make_config(server, tmp_path / "small.db", window=9_000)
    bulk = " ".join(f"w{i}" for i in range(600))
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for prompt in (f"first question {bulk}", f"second question {bulk}", "/compact", "third question"):
            await send(pilot, prompt)
            await settle(pilot)
        session_id = app.view.session.session_id
    again = make_app(config, workspace, session_id=session_id)
    async with again.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        items = list(again.view.chat.children)
        order = [
            "user:" + i.entry.text[:6] if isinstance(i, UserItem) else "compaction"
            for i in items
            if isinstance(i, UserItem) or (isinstance(i, NoticeItem) and i.entry.compaction is not None)
        ]
        line = next(i for i in items if isinstance(i, NoticeItem) and i.entry.compaction is not None)
    assert order == ["user:first ", "user:second", "compaction", "user:third "]
    assert line.entry.text.startswith("Compacted ")
    assert line.entry.compaction.record is not None  # the line opens its record, as it did live
