"""A real llama.cpp server with its reasoning parser on. The test model cannot reason, but with a
template that opens a `<think>` block (as Qwen3's and DeepSeek-R1's do) llama.cpp's parser takes
everything it writes for reasoning and streams it as `reasoning_content`: the mechanics of a
reasoning model on a local server. Pinned: the turns complete, the reasoning arrives as reasoning
events and is stored, and no request sends it back (nor `reasoning_effort` breaks anything)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.llm import http_openai
from testkit.llama_server import LlamaServer, start_test_server
from tests.support.real_server import SERVER_SETTINGS, WINDOW, real_config, thinking_template


@pytest.fixture(scope="module")
def thinking_llama(tmp_path_factory) -> Iterator[LlamaServer]:
    """A second server, for this module only: the thinking template, reasoning parser deepseek."""
    log_path = tmp_path_factory.mktemp("llama-thinking") / "server.log"
    extra = {**SERVER_SETTINGS, "reasoning_format": 3}  # COMMON_REASONING_FORMAT_DEEPSEEK
    server = start_test_server(thinking_template(), n_ctx=WINDOW, log_path=log_path, extra=extra)
    yield server
    server.stop()


class SentBodies:
    """Wraps the real request encoder and keeps every body it built (what went on the wire)."""

    def __init__(self, real) -> None:
        self.real = real
        self.bodies: list[dict] = []

    def __call__(self, *args, **kwargs):
        chunks = self.real(*args, **kwargs)  # the body as the pieces it is sent in
        self.bodies.append(json.loads(b"".join(chunks)))
        return chunks


async def test_reasoning_streams_is_stored_and_is_never_sent_back(thinking_llama, tmp_path, monkeypatch):
    """Two turns with the parser on: reasoning deltas stream, the reply keeps them, the second
    request carries neither `reasoning_content` nor the reasoning text, and the server accepts it."""
    sent = SentBodies(http_openai.encode)
    monkeypatch.setattr(http_openai, "encode", sent)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = real_config(thinking_llama, tmp_path / "agent.db", model={"reasoning_effort": "low"})
    services = await build_services(config, workspace=workspace)
    try:
        session = await services.new_session()
        first = [e async for e in session.run_turn("Count to 5")]
        second = [e async for e in session.run_turn("And to 10?")]
        stored = await services.store.sessions.transcript(session.session_id)
    finally:
        await services.close()
    for events in (first, second):
        assert events[-1].stop_reason == "done", [e for e in events if isinstance(e, ev.ErrorEvent)]
    thought = "".join(e.text for e in first if isinstance(e, ev.ReasoningDelta))
    assert thought.strip(), "the parser streamed no reasoning_content"
    assert [e.tokens > 0 for e in first if isinstance(e, ev.ReasoningFinished)] == [True]
    reply = stored[1]
    assert reply.role == "assistant" and reply.reasoning is not None and reply.reasoning.text == thought
    assert len(sent.bodies) == 2 and all(body["reasoning_effort"] == "low" for body in sent.bodies)
    for message in sent.bodies[1]["messages"]:
        assert "reasoning_content" not in message and "reasoning" not in message
        assert thought.strip() not in str(message.get("content") or "")
