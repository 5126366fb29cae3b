"""The provider's preparation of a large request leaves the event loop free (issue 19 item 1).

A ticker task spins on the loop while a 3 000-message request is built and sent over the direct
path; the real request builder runs, observed (not replaced) so the test knows when it is at
work. The ticker must have run *while the body was being built* — with the preparation on the
loop, as the SDK under litellm does it, it could not tick once in that span. No durations.
"""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from agent_tui.base.wire_dict import WireDict
from agent_tui.llm import anthropic_request, direct, http_openai
from agent_tui.llm.provider import Provider, StreamDone
from testkit.fake_anthropic import FakeAnthropic
from testkit.fake_openai import FakeOpenAI, Reply


def big_history(n: int) -> list[dict]:
    out: list[dict] = []
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        out.append({"role": role, "content": f"message {i}: " + "lorem ipsum dolor sit amet " * 40})
    if out[-1]["role"] != "user":
        out.append({"role": "user", "content": "and now?"})
    return out


class Observed:
    """Wraps the real encoder: flags while it runs, in whichever thread runs it."""

    def __init__(self, real) -> None:
        self.real = real
        self.building = threading.Event()
        self.calls = 0
        self.on_loop_thread = False

    def __call__(self, *args, **kwargs):
        self.calls += 1
        self.on_loop_thread = threading.current_thread() is threading.main_thread()
        self.building.set()
        try:
            return self.real(*args, **kwargs)
        finally:
            self.building.clear()


async def ticks_while_building(
    provider: Provider, messages: list[dict], busy: threading.Event
) -> tuple[int, list]:
    """How often the loop ran a task while `busy` was set during the call, and its events."""
    ticks = 0
    stop = False

    async def ticker() -> None:
        nonlocal ticks
        while not stop:
            if busy.is_set():
                ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        events = [event async for event in provider.stream(messages, max_tokens=50)]
    finally:
        stop = True
        await task
    return ticks, events


@pytest.fixture
def fast_switching():
    """A 1 ms GIL switch interval, so the loop's thread gets its turn during any build."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    yield
    sys.setswitchinterval(before)


async def test_openai_request_is_built_while_the_loop_ticks(monkeypatch, fast_switching):
    """3 000 messages to an OpenAI-compatible server: the ticker ran during the build."""
    observed = Observed(http_openai.encode)
    monkeypatch.setattr(http_openai, "encode", observed)
    with FakeOpenAI(window=10_000_000) as server:
        server.enqueue(Reply(text="fine"))
        provider = Provider(server.litellm_model, api_base=server.base_url)
        ticks, events = await ticks_while_building(provider, big_history(3_000), observed.building)
        assert len(server.requests[0]["messages"]) == 3_001
    assert events[-1] == StreamDone("stop")
    assert observed.calls == 1 and not observed.on_loop_thread
    assert ticks > 0


async def test_anthropic_request_is_translated_while_the_loop_ticks(monkeypatch, fast_switching):
    """The same for Anthropic, whose translation walks every message."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    observed = Observed(anthropic_request.encode)
    monkeypatch.setattr(anthropic_request, "encode", observed)
    with FakeAnthropic(window=10_000_000) as server:
        provider = Provider("anthropic/claude-sonnet-4-5", api_base=server.base_url)
        ticks, events = await ticks_while_building(provider, big_history(3_000), observed.building)
        assert len(server.requests[0]["messages"]) == 3_001
    assert events[-1] == StreamDone("stop")
    assert observed.calls == 1 and not observed.on_loop_thread
    assert ticks > 0


async def test_a_large_body_goes_out_in_pieces_while_the_loop_ticks(monkeypatch):
    """Handing a ~3 MB body to the socket in one call held the loop for the whole copy; it goes
    in pieces with the loop's turn between them, and the server still gets one whole,
    Content-Length-framed body (not chunked: some servers reject chunked requests)."""
    sending = threading.Event()

    class Watched(direct.Pieces):
        async def __aiter__(self):
            sending.set()
            try:
                async for piece in super().__aiter__():
                    yield piece
            finally:
                sending.clear()

    monkeypatch.setattr(direct, "Pieces", Watched)
    messages = big_history(3_000)
    with FakeOpenAI(window=10_000_000) as server:
        server.enqueue(Reply(text="fine"))
        provider = Provider(server.litellm_model, api_base=server.base_url)
        ticks, events = await ticks_while_building(provider, messages, sending)
        recorded = server.recorded[-1]
    assert events[-1] == StreamDone("stop")
    assert ticks > 0
    assert recorded.body is not None and recorded.body["messages"] == messages
    assert "transfer-encoding" not in recorded.headers
    assert int(recorded.headers["content-length"]) > direct.PIECE


@pytest.mark.parametrize(
    "sizes",
    [
        [],
        [0],
        [10],
        [direct.PIECE],
        [direct.PIECE + 1],
        [3 * direct.PIECE + 5],
        [1] * 5000,
        [100, 5 * direct.PIECE, 0, 7, direct.PIECE - 1, 2, 2 * direct.PIECE, 9],
    ],
)
def test_pieces_are_the_body_in_order_and_none_is_over_a_piece(sizes):
    chunks = [bytes([65 + i % 26]) * size for i, size in enumerate(sizes)]
    pieces = list(direct.Pieces(chunks).pieces())
    assert b"".join(pieces) == b"".join(chunks)
    assert all(0 < len(piece) <= direct.PIECE for piece in pieces)
    assert direct.Pieces(chunks).size == sum(sizes)


def test_repeated_prefix_is_reused_but_a_changed_message_is_not():
    """The next request's body equals a fresh serialisation, whether messages grew or changed.
    The session's messages are read-only WireDicts, reused by identity; a plain dict is kept as a
    copy when sent, so one changed in place afterwards never goes out stale."""
    memo = http_openai.EncodedMessages()
    history = [WireDict(message) for message in big_history(50)]

    def body(messages: list[dict]) -> bytes:
        return b"".join(
            http_openai.encode("m", messages, None, None, stream=True, provider=None, extra={}, memo=memo)
        )

    def fresh(messages: list[dict]) -> bytes:
        return b"".join(http_openai.encode("m", messages, None, None, stream=True, provider=None, extra={}))

    assert body(history) == fresh(history)
    grown = [*history, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]
    assert memo.reusable(grown) == len(history)
    assert body(grown) == fresh(grown)
    with pytest.raises(TypeError):
        grown[3]["content"] = "changed in place"
    assert memo.reusable(grown) == len(history)  # the plain dicts at the end were sent as copies
    grown[-1]["content"] = "changed in place"  # nobody should, but it must not go out stale
    assert memo.reusable(grown) == len(history)
    assert body(grown) == fresh(grown)
    grown[3] = WireDict(grown[3], content="a new message in its place")
    assert memo.reusable(grown) == 3
    assert body(grown) == fresh(grown)
