"""`@path` attachments and huge pastes become views with refs, like tool outputs."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(make_config(server, tmp_path / "a.db"), workspace=workspace)
    yield svc
    await svc.close()


class TestAttachments:
    async def test_small_file_is_attached_whole(self, server, services, workspace):
        (workspace / "notes.txt").write_text("remember the milk\n")
        server.enqueue(Reply(text="ok"))
        session = await services.new_session()
        await collect(session.run_turn("read @notes.txt, please"))
        sent = server.requests[0]["messages"][-1]["content"]
        assert '<attachment path="notes.txt">\nremember the milk\n</attachment>' in sent

    async def test_five_megabyte_file_arrives_as_a_view_with_a_ref(self, server, services, workspace):
        """A 5 MB attachment: the model gets head, tail and a ref; the store holds it all."""
        lines = [f"row {i:07d} " + "x" * 40 for i in range(100_000)]
        (workspace / "big.log").write_text("\n".join(lines) + "\n")
        server.enqueue(Reply(text="ok"))
        session = await services.new_session()
        events = await collect(session.run_turn("what is in @big.log?"))
        sent = server.requests[0]["messages"][-1]["content"]
        assert "row 0000000" in sent and "row 0099999" in sent and "row 0050000" not in sent
        assert len(sent.encode()) < 6000
        ref = events[-1].refs[0]
        assert ref.byte_size == (workspace / "big.log").stat().st_size
        assert ref.id in sent
        page = await services.store.results.read(ref.id, 50_001, 1, session_id=session.session_id)
        assert "row 0050000" in page
        assert any("big.log" in n.message for n in of_type(events, ev.Notice))

    async def test_paths_outside_the_workspace_are_plain_text(self, server, services):
        server.enqueue(Reply(text="ok"))
        session = await services.new_session()
        await collect(session.run_turn("see @/etc/passwd and @../secret"))
        assert "<attachment" not in server.requests[0]["messages"][-1]["content"]


class TestHugePaste:
    async def test_two_megabyte_paste_is_offloaded(self, server, services):
        """A 2 MB paste never goes out whole: a view plus a ref the model can read from."""
        paste = "\n".join(f"log line {i}: something happened" for i in range(60_000))
        assert len(paste) > 2_000_000
        server.enqueue(Reply(text="ok"))
        session = await services.new_session()
        events = await collect(session.run_turn(paste))
        sent = server.requests[0]["messages"][-1]["content"]
        assert len(sent.encode()) < 6000 and "log line 59999" in sent
        ref = events[-1].refs[0]
        text = await services.store.results.get_text(ref.id, session_id=session.session_id)
        assert text == paste
