"""A custom command's `model:` re-checks vision: on a model that takes no images, the pictures
already in the conversation go as their placeholder lines and a new one gets the usual notice —
the provider never sees an image part it would refuse — and the session's own model gets the
pictures again after (issue 32, noticed)."""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.extensions.invoke import turn_events
from agent_tui.policy import trust
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.extend import write
from tests.support.images import png

TEXT_ONLY = "openai/gpt-3.5-turbo"
"""A model litellm's list knows without `supports_vision`."""


@pytest.fixture
def server():
    with FakeOpenAI(window=32_000, also_serves=("gpt-3.5-turbo",)) as srv:
        yield srv


def image_parts(request: dict) -> list[dict]:
    return [
        part
        for m in request["messages"]
        if isinstance(m["content"], list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]


async def test_command_on_a_text_only_model_sends_no_image_part(server, workspace, tmp_path):
    """`/explain @b.png` on gpt-3.5-turbo after a picture on the session's model: one notice for
    the earlier picture, one for the new one, no image part in that request; the next turn on
    the session's model sends the first picture again."""
    write(workspace / ".claude/commands/explain.md", f"---\nmodel: {TEXT_ONLY}\n---\nExplain $ARGUMENTS.\n")
    trust.add(workspace)
    (workspace / "a.png").write_bytes(png(40, 30))
    (workspace / "b.png").write_bytes(png(8, 8))
    server.enqueue(Reply(text="a grey box"), Reply(text="cannot see it"), Reply(text="still a box"))
    svc = await build_services(make_config(server, tmp_path / "v.db", cwd=workspace), workspace=workspace)
    try:
        session = await svc.new_session()
        await collect(session.run_turn("see @a.png"))
        events = await collect(turn_events(session, "/explain @b.png"))
        await collect(session.run_turn("and again?"))
    finally:
        await svc.close()
    first, command, after = server.requests
    assert len(image_parts(first)) == 1
    assert command["model"] == "gpt-3.5-turbo" and image_parts(command) == []
    said = [e.message for e in events if isinstance(e, ev.Notice)]
    about = [line for line in said if "image" in line]
    assert len(about) == 2, said
    assert "1 picture earlier in the conversation goes as a line of text" in about[0]
    assert "@b.png: not sent" in about[1]
    sent_first = next(m for m in command["messages"] if m["role"] == "user")
    assert "[image a.png (40x30) was attached here; not sent with this request]" in str(sent_first["content"])
    assert after["model"] == "fake-model" and len(image_parts(after)) == 1
