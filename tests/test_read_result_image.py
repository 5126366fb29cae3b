"""`read_result` (and `grep_result`) on a stored picture answer what it is — type, size and
dimensions — instead of its bytes decoded as text (issue 32, noticed)."""

from __future__ import annotations

import pytest

from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.images import png


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(make_config(server, tmp_path / "a.db"), workspace=workspace)
    yield svc
    await svc.close()


def tool_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_read_and_grep_a_picture_describe_it(server, services, workspace):
    """The model reads the ref of an attached PNG: it gets `PNG image, 64x32, …` and no raw bytes."""
    data = png(64, 32, pad=3000)
    (workspace / "shot.png").write_bytes(data)
    server.enqueue(Reply(text="a grey box"))
    session = await services.new_session()
    await collect(session.run_turn("see @shot.png"))
    ref = next(m for m in session.history if m.images).images[0].ref_id
    assert ref is not None
    server.enqueue(
        Reply(
            tool_calls=[("read_result", {"ref_id": ref}), ("grep_result", {"ref_id": ref, "pattern": "IHDR"})]
        ),
        Reply(text="it is a picture"),
    )
    await collect(session.run_turn("read that ref"))
    read, grep = tool_texts(server.requests[-1])
    expected = f"{ref} is a picture, not text: shot.png, PNG image, 64x32, {round(len(data) / 1024)} KB"
    assert read.startswith(expected), read
    assert grep.startswith(expected), grep
    for text in (read, grep):
        assert "IHDR" not in text and "PNG\r" not in text and "\ufffd" not in text
