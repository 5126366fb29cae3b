"""The provider over real HTTP to the strict local server: events, usage, retries (and their
waits), error kinds, cancellation — on both paths: the direct httpx path (`transport = "auto"`)
and litellm (`transport = "litellm"`), which must behave the same."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

from agent_tui.llm.errors import LLMError
from agent_tui.llm.provider import (
    PLACEHOLDER_KEY,
    Provider,
    StreamDone,
    TextChunk,
    ToolCallsReady,
    UsageChunk,
    provider_of,
)
from agent_tui.llm.stream import RetryWait
from testkit import FakeOpenAI, Reply

HI = [{"role": "user", "content": "hi"}]
BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a command",
        "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
    },
}


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "FAKE_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


TRANSPORT = {"now": "auto"}


@pytest.fixture(autouse=True, params=["auto", "litellm"])
def transport(request):
    """Every test runs on the direct path and on litellm."""
    TRANSPORT["now"] = request.param
    return request.param


def make(server: FakeOpenAI, **kw) -> Provider:
    kw.setdefault("retry_base_delay", 0.01)
    kw.setdefault("transport", TRANSPORT["now"])
    return Provider(server.litellm_model, api_base=server.base_url, **kw)


async def collect(provider: Provider, messages=HI, **kw) -> list:
    return [event async for event in provider.stream(messages, **kw)]


def text_of(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


class TestStreaming:
    async def test_text_streams_in_pieces(self, server):
        """Text arrives as several TextChunks, then usage, then StreamDone('stop')."""
        server.enqueue(Reply(text="the quick brown fox jumps over"))
        events = await collect(make(server))
        assert sum(isinstance(e, TextChunk) for e in events) > 1
        assert text_of(events) == "the quick brown fox jumps over"
        assert isinstance(events[-2], UsageChunk)
        assert events[-1] == StreamDone("stop")

    async def test_long_repetitive_reply(self, server):
        """A long filler reply streams whole through litellm (no repeated-chunk abort)."""
        server.enqueue(Reply(text="word " * 600))
        assert text_of(await collect(make(server))) == "word " * 600

    async def test_tool_calls_assembled(self, server):
        """Argument pieces of two interleaved calls come back as whole ToolCalls, in order."""
        server.enqueue(Reply(tool_calls=[("bash", {"cmd": "ls -la"}), ("bash", {"cmd": "pwd"})]))
        events = await collect(make(server), tools=[BASH])
        ready = [e for e in events if isinstance(e, ToolCallsReady)]
        assert len(ready) == 1
        calls = ready[0].calls
        assert [c.parsed_arguments() for c in calls] == [{"cmd": "ls -la"}, {"cmd": "pwd"}]
        assert all(c.name == "bash" and c.id.startswith("call_") for c in calls)
        assert len({c.id for c in calls}) == 2
        assert events[-1] == StreamDone("tool_calls")
        assert server.requests[0]["tools"][0]["function"]["name"] == "bash"

    async def test_usage_matches_server_count(self, server):
        """Usage is always requested; prompt tokens are the server's own count, cached split out."""
        server.enqueue(Reply(text="ok", cached_tokens=3))
        events = await collect(make(server))
        usage = next(e.usage for e in events if isinstance(e, UsageChunk))
        request = server.requests[0]
        assert request["stream_options"] == {"include_usage": True}
        assert usage.prompt_tokens == server.prompt_tokens_of(request)
        assert usage.cache_read == 3 and usage.output > 0

    async def test_max_tokens_forwarded(self, server):
        """max_tokens reaches the server (and counts against its window)."""
        await collect(make(server), max_tokens=77)
        assert server.requests[0]["max_tokens"] == 77

    async def test_placeholder_key_for_local_server(self, server):
        """With an api_base and no key anywhere, a placeholder key is sent."""
        await collect(make(server))
        assert server.authorizations == [f"Bearer {PLACEHOLDER_KEY}"]

    async def test_key_from_api_key_env(self, server, monkeypatch):
        """api_key_env names the variable whose value is sent as the bearer key."""
        monkeypatch.setenv("FAKE_KEY", "sk-from-env")
        await collect(make(server, api_key_env="FAKE_KEY"))
        assert server.authorizations == ["Bearer sk-from-env"]

    async def test_bare_model_name_behind_api_base(self, server):
        """A name litellm does not know ('fake-model') behind an api_base uses the OpenAI API."""
        provider = Provider("fake-model", api_base=server.base_url, transport=TRANSPORT["now"])
        assert text_of(await collect(provider)) == "echo: hi"


class TestComplete:
    async def test_complete_returns_text_and_usage(self, server):
        """complete() is one non-streamed call: text, usage, no stream options sent."""
        server.enqueue(Reply(text="a summary"))
        text, usage = await make(server).complete(HI, max_tokens=50)
        assert text == "a summary"
        assert usage.prompt_tokens == server.prompt_tokens_of(server.requests[0])
        assert "stream_options" not in server.requests[0] and not server.requests[0].get("stream")

    async def test_complete_retries_server_errors(self, server):
        """A 500 before a non-streamed answer is retried like a streamed one."""
        server.enqueue(Reply(status=500), Reply(text="second time"))
        assert (await make(server).complete(HI))[0] == "second time"
        assert len(server.requests) == 2


class TestRetries:
    async def test_rate_limit_waits_retry_after(self, server):
        """A 429 is retried after the Retry-After the server sent, not the (long) backoff."""
        server.enqueue(Reply(status=429, retry_after=0.3), Reply(text="after wait"))
        events = await collect(make(server, retry_base_delay=5))
        assert text_of(events) == "after wait"
        # The wait the provider announces (and sleeps) is the server's, not the 5 s backoff.
        assert [e.wait for e in events if isinstance(e, RetryWait)] == [0.3]
        assert len(server.recorded) == 2

    async def test_server_error_then_success(self, server):
        """A 500 is retried and the reply of the second try is streamed once."""
        server.enqueue(Reply(status=500), Reply(text="fine now"))
        assert text_of(await collect(make(server))) == "fine now"
        assert len(server.requests) == 2

    async def test_dropped_connection_then_success(self, server):
        """A connection closed before any response is retried."""
        server.enqueue(Reply(drop_connection=True), Reply(text="back"))
        assert text_of(await collect(make(server))) == "back"

    async def test_drop_before_any_text_is_retried(self, server):
        """A stream cut after the role chunk (nothing yielded yet) is retried; no text twice."""
        server.enqueue(Reply(text="x y z w", drop_after_chunks=1), Reply(text="whole reply"))
        assert text_of(await collect(make(server))) == "whole reply"

    async def test_drop_after_text_is_not_retried(self, server):
        """Once text was yielded, a dropped stream raises instead of streaming it again."""
        server.enqueue(Reply(text="a b c d e f", drop_after_chunks=2), Reply(text="never"))
        seen: list = []
        with pytest.raises(LLMError) as info:
            async for event in make(server).stream(HI):
                seen.append(event)
        assert info.value.kind == "connection"
        assert text_of(seen) == "a b " and len(server.requests) == 1

    async def test_three_drops_give_connection_error(self, server):
        """Three failed tries in all, then kind='connection' with a one-line message."""
        server.enqueue(*[Reply(drop_connection=True)] * 3)
        with pytest.raises(LLMError) as info:
            await collect(make(server))
        assert info.value.kind == "connection" and len(server.requests) == 3
        assert "\n" not in str(info.value) and "3 tries" in str(info.value)

    async def test_three_server_errors_give_provider_error(self, server):
        """Three 500s: kind='provider', after exactly max_retries tries."""
        server.enqueue(*[Reply(status=500)] * 3, Reply(text="too late"))
        with pytest.raises(LLMError) as info:
            await collect(make(server))
        assert info.value.kind == "provider" and info.value.status == 500
        assert len(server.requests) == 3 and server.pending == 1

    async def test_max_retries_one_means_no_retry(self, server):
        """max_retries counts tries in all: 1 is a single call."""
        server.enqueue(Reply(status=503), Reply(text="unused"))
        with pytest.raises(LLMError):
            await collect(make(server, max_retries=1))
        assert len(server.requests) == 1


class TestErrorKinds:
    async def test_context_length(self, server):
        """A prompt over the window is kind='context_length', not retried."""
        server.window = 50
        with pytest.raises(LLMError) as info:
            await collect(make(server), [{"role": "user", "content": "word " * 200}])
        assert info.value.kind == "context_length" and len(server.requests) == 1
        assert "/compact" in str(info.value)

    async def test_auth_not_retried(self, monkeypatch):
        """A 401 is kind='auth' after one try, and names the key variable."""
        monkeypatch.setenv("FAKE_KEY", "sk-wrong")
        with FakeOpenAI(api_key="sk-right") as server:
            with pytest.raises(LLMError) as info:
                await collect(make(server, api_key_env="FAKE_KEY"))
            assert len(server.requests) == 1
        assert info.value.kind == "auth" and "FAKE_KEY" in str(info.value)

    async def test_unknown_model_not_found(self, server):
        """A model the server does not serve is kind='not_found'."""
        provider = Provider("openai/other-model", api_base=server.base_url, transport=TRANSPORT["now"])
        with pytest.raises(LLMError) as info:
            await collect(provider)
        assert info.value.kind == "not_found"

    async def test_unpaired_tool_calls_bad_request(self, server):
        """The strict server's pairing 400 surfaces as kind='bad_request' with its reason."""
        call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        messages = HI + [{"role": "assistant", "content": None, "tool_calls": [call]}]
        with pytest.raises(LLMError) as info:
            await collect(make(server), messages)
        assert info.value.kind == "bad_request" and "tool_call_ids" in str(info.value)

    async def test_timeout_is_connection(self, server):
        """A server slower than the timeout is kind='connection' ('did not answer in time')."""
        server.enqueue(Reply(text="late", delay=2))
        with pytest.raises(LLMError) as info:
            await collect(make(server, timeout=0.3, max_retries=1))
        assert info.value.kind == "connection" and "in time" in str(info.value)

    @pytest.mark.parametrize(
        ("model", "variable"),
        [("openai/gpt-4o", "OPENAI_API_KEY"), ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY")],
    )
    async def test_missing_key_names_variable(self, model, variable):
        """No key and no api_base: kind='missing_key' naming the variable to set."""
        with pytest.raises(LLMError) as info:
            await collect(Provider(model, retry_base_delay=0.01, transport=TRANSPORT["now"]))
        assert info.value.kind == "missing_key" and variable in str(info.value)

    async def test_missing_configured_key_env(self):
        """api_key_env set but empty, no api_base: missing_key naming that variable, no call."""
        with pytest.raises(LLMError) as info:
            await collect(Provider("openai/gpt-4o", api_key_env="FAKE_KEY", transport=TRANSPORT["now"]))
        assert info.value.kind == "missing_key" and "FAKE_KEY" in str(info.value)


class TestCancellation:
    async def test_cancel_mid_stream_closes_connection(self, server):
        """Cancelling the consumer ends the task promptly and the server sees the stream closed."""
        words = " ".join(f"w{i}" for i in range(400))
        server.enqueue(Reply(text=words, chunk_delay=0.05))
        first = asyncio.Event()
        seen: list = []

        async def consume() -> None:
            async for event in make(server).stream(HI):
                seen.append(event)
                first.set()

        task = asyncio.create_task(consume())
        await first.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The server saw the connection close mid-stream (the whole stream takes 20 s); how
        # quickly a cancel lands is measured by benchmarks/cancel.py.
        assert await asyncio.to_thread(server.aborted.wait, 3)
        assert not any(isinstance(event, StreamDone) for event in seen)  # cut, not finished
        assert text_of(await collect(make(server))) == "echo: hi"  # the provider still works

    async def test_closing_early_closes_connection(self, server):
        """A consumer that stops reading and closes the stream frees the HTTP stream at once."""
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(400)), chunk_delay=0.05))
        async with contextlib.aclosing(make(server).stream(HI)) as events:
            async for event in events:
                assert isinstance(event, TextChunk)
                break
        assert await asyncio.to_thread(server.aborted.wait, 3)


class TestProviderOf:
    @pytest.mark.parametrize(
        ("model", "expected"),
        [
            ("anthropic/claude-sonnet-4-5", "anthropic"),
            ("claude-sonnet-4-5", "anthropic"),
            ("gpt-4o", "openai"),
            ("ollama/llama3", "ollama"),
            ("no-such-model-xyz", None),
        ],
    )
    def test_provider_prefix(self, model, expected):
        """provider_of maps a model name to litellm's provider, None when unknown."""
        assert provider_of(model) == expected

    def test_error_message_is_one_line_json_free(self):
        """LLMError's str is its message; kind and retryability ride along."""
        error = LLMError("rate_limit", "slow down", retry_after=2.0)
        assert str(error) == "slow down" and error.retryable and error.retry_after == 2.0
        assert json.dumps({"kind": error.kind}) == '{"kind": "rate_limit"}'
