"""Hung servers and garbage answers (issue 21 items 6-7), over real HTTP to the scripted server.

A server that never answers, or goes silent mid-stream, ends the call at the configured limit,
retried once at most, with a one-line error naming the server and the setting. An HTML page,
an empty stream, or a stream that stops before its end is an error — never an empty reply — and
partial text is kept marked `[incomplete: …]`. Limits are set short; nothing here sleeps.
"""

from __future__ import annotations

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.llm.errors import LLMError
from agent_tui.llm.http_common import TimeLimits
from agent_tui.llm.provider import Provider, TextChunk
from agent_tui.llm.stream import RetryWait
from testkit import FakeOpenAI, Reply
from testkit.fake_anthropic import FakeAnthropic
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.cli import flags, run_cli

HI = [{"role": "user", "content": "hi"}]
SHORT = TimeLimits(connect=5, first_byte=10, idle=1.0, total=60)
"""Short enough to end a stall quickly, long enough for a loaded machine's ordinary answers."""
HTML = ("text/html; charset=utf-8", "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>")


@pytest.fixture(params=["auto", "litellm"])
def transport(request):
    return request.param


def make(server: FakeOpenAI, transport: str, limits: TimeLimits = SHORT, **kw) -> Provider:
    return Provider(
        server.litellm_model,
        api_base=server.base_url,
        retry_base_delay=0.01,
        limits=limits,
        transport=transport,
        **kw,
    )


async def run(provider: Provider) -> tuple[list, LLMError | None]:
    seen: list = []
    try:
        async for event in provider.stream(HI):
            seen.append(event)
    except LLMError as exc:
        return seen, exc
    return seen, None


def text_of(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


class TestTimeLimits:
    async def test_server_that_never_answers_is_tried_twice_then_named(self, server, transport):
        """A hung server: two tries (not max_retries), then one line naming it and the setting."""
        server.enqueue(Reply(hang=True), Reply(hang=True), Reply(text="never reached"))
        # litellm builds its request inside the awaited call, so its first-byte limit also
        # covers that preparation (slow on a loaded machine): give it room to reach the server.
        first_byte = 0.3 if transport == "auto" else 3.0
        limits = TimeLimits(connect=5, first_byte=first_byte, idle=1.0, total=60)
        _, error = await run(make(server, transport, limits, max_retries=3))
        assert error is not None and error.kind == "connection" and error.timed_out
        # Two tries made (a loaded server may not have read a request before its limit ran out).
        assert "gave up after 2 tries" in str(error) and len(server.requests) <= 2
        message = str(error)
        assert server.base_url in message and "provider.first_byte_timeout" in message
        assert "\n" not in message

    async def test_silence_after_text_is_not_retried(self, server, transport):
        """One chunk of text, then silence: the idle limit ends it; the text is not sent twice."""
        server.enqueue(Reply(text="alpha beta gamma delta", stall_after_chunks=2), Reply(text="unused"))
        seen, error = await run(make(server, transport))
        assert error is not None and error.timed_out and "provider.idle_timeout" in str(error)
        assert text_of(seen) == "alpha beta " and len(server.requests) == 1

    async def test_silence_before_text_is_retried_once(self, server, transport):
        """Silent after the role chunk (nothing shown yet): the second try's reply streams."""
        server.enqueue(Reply(text="x y", stall_after_chunks=1), Reply(text="second try"))
        seen, error = await run(make(server, transport))
        assert error is None and text_of(seen) == "second try" and len(server.requests) == 2

    async def test_unstreamed_reply_is_not_held_to_the_first_byte_limit(self, server, transport):
        """complete() (summaries) gets its first byte only when the whole reply is generated: a
        reply slower than first_byte_timeout but within the total deadline is accepted."""
        server.enqueue(Reply(text="a summary", delay=1.0))
        limits = TimeLimits(connect=5, first_byte=0.3, idle=0.3, total=60)
        text, _ = await make(server, transport, limits, max_retries=1).complete(HI)
        assert text == "a summary"

    async def test_total_deadline(self, server, transport):
        """A reply trickling in under the idle limit still ends at the total deadline."""
        words = " ".join(f"w{i}" for i in range(200))
        server.enqueue(Reply(text=words, chunk_delay=0.05, words_per_chunk=1))
        limits = TimeLimits(connect=2, first_byte=5, idle=5, total=0.5)
        seen, error = await run(make(server, transport, limits, max_retries=1))
        assert error is not None and "provider.total_timeout" in str(error)
        assert 0 < len(text_of(seen).split()) < 200


class TestGarbage:
    """The direct path only: litellm turns an empty or cut stream into a normal ending (it
    makes up a finish reason), so for providers reached through litellm these stay undetected."""

    async def test_html_page_is_an_error_not_an_empty_reply(self, server):
        """A 200 carrying an HTML page (a proxy's, a web UI's): an error, never a reply."""
        server.enqueue(*[Reply(raw=HTML)] * 3)
        seen, error = await run(make(server, "auto"))
        assert error is not None and text_of(seen) == ""
        assert error.kind == "bad_response" and "HTML" in str(error) and "api_base" in str(error)
        assert len(server.requests) == 1  # the same URL would give the same page

    async def test_text_that_is_not_json(self, server):
        """A stream of lines that are not JSON is a bad_response naming the server."""
        server.enqueue(Reply(raw=("text/event-stream", "data: {not json\n\n")))
        _, error = await run(make(server, "auto"))
        assert error is not None and error.kind == "bad_response" and server.base_url in str(error)

    async def test_empty_stream(self, server):
        """A 200 stream with no chunk at all: an error after the usual tries, with nothing but
        the retries announced before it."""
        server.enqueue(*[Reply(text="a b", end_after_chunks=0)] * 3)
        seen, error = await run(make(server, "auto"))
        assert error is not None and error.kind == "connection"
        assert [(c.attempt, c.tries) for c in seen if isinstance(c, RetryWait)] == [(2, 3), (3, 3)]
        assert [c for c in seen if not isinstance(c, RetryWait)] == []
        assert len(server.requests) == 3

    async def test_stream_cut_before_its_end(self, server):
        """Text, then the body ends cleanly with no finish reason and no [DONE]: an error, and
        the text already shown is not streamed again."""
        server.enqueue(Reply(text="one two three four", end_after_chunks=2), Reply(text="unused"))
        seen, error = await run(make(server, "auto"))
        assert error is not None and error.kind == "connection" and "cut off" in str(error)
        assert text_of(seen) == "one two " and len(server.requests) == 1

    async def test_a_whole_completion_instead_of_a_stream_is_accepted(self, server):
        """A server that ignores stream=true and sends one JSON completion still answers."""
        body = (
            '{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop",'
            ' "message": {"role": "assistant", "content": "whole"}}],'
            ' "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}'
        )
        server.enqueue(Reply(raw=("application/json", body)))
        seen, error = await run(make(server, "auto"))
        assert error is None and text_of(seen) == "whole"


class TestInTheSession:
    async def test_cut_reply_is_kept_marked_incomplete(self, server, tmp_path, workspace):
        """The session keeps the partial text, marked, and reports the error."""
        config = make_config(server, tmp_path / "cut.db")
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session()
            server.enqueue(Reply(text="the answer is forty", end_after_chunks=3))
            events = await collect(session.run_turn("what is it?"))
        finally:
            await services.close()
        errors = of_type(events, ev.ErrorEvent)
        assert len(errors) == 1 and "cut off" in errors[0].message
        last = session.history[-1]
        assert last.role == "assistant" and last.content is not None
        assert last.content.startswith("the answer is ") and "[incomplete: " in last.content

    def test_headless_run_exits_non_zero_on_html(self, server, workspace, tmp_path, isolated_home):
        """`agent-tui run` against an HTML answer: exit 1, one line on stderr, nothing on stdout."""
        server.enqueue(*[Reply(raw=HTML)] * 3)
        done = run_cli(["run", "hi", *flags(server, tmp_path / "h.db")], workspace)
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        errors = [line for line in done.stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and "HTML" in errors[0]

    def test_headless_run_against_a_hung_server_names_the_setting(
        self, server, workspace, tmp_path, isolated_home
    ):
        """A hung server under `agent-tui run`: exit 1 after two tries, naming the setting."""
        config = isolated_home / "config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text("[provider]\nfirst_byte_timeout = 0.3\n")
        server.enqueue(Reply(hang=True), Reply(hang=True), Reply(text="unused"))
        done = run_cli(["run", "hi", *flags(server, tmp_path / "h.db")], workspace)
        assert done.returncode == 1 and "provider.first_byte_timeout" in done.stderr
        assert "gave up after 2 tries" in done.stderr and len(server.requests) <= 2


class TestAnthropic:
    """The same limits and checks on the direct Anthropic path."""

    @pytest.fixture
    def anthropic(self, monkeypatch):
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        with FakeAnthropic() as server:
            yield server

    def provider(self, server: FakeAnthropic) -> Provider:
        return Provider(
            "anthropic/claude-sonnet-4-5", api_base=server.base_url, retry_base_delay=0.01, limits=SHORT
        )

    async def test_stream_cut_before_message_stop(self, anthropic):
        """Text, then the body ends without message_stop: an error; the text is not repeated."""
        anthropic.enqueue(Reply(text="one two three four", end_after_chunks=3), Reply(text="unused"))
        seen, error = await run(self.provider(anthropic))
        assert error is not None and error.kind == "connection" and "message_stop" in str(error)
        assert text_of(seen) == "one two " and len(anthropic.requests) == 1

    async def test_silence_mid_reply(self, anthropic):
        """Silent after the first text: the idle limit ends the call, naming the setting."""
        anthropic.enqueue(Reply(text="one two three four", stall_after_chunks=3))
        seen, error = await run(self.provider(anthropic))
        assert error is not None and error.timed_out and "provider.idle_timeout" in str(error)
        assert text_of(seen) == "one two " and len(anthropic.requests) == 1

    async def test_empty_stream_is_retried(self, anthropic):
        """A 200 stream with no event at all, then a whole one: the second try's reply."""
        anthropic.enqueue(Reply(text="x", end_after_chunks=0), Reply(text="fine"))
        seen, error = await run(self.provider(anthropic))
        assert error is None and text_of(seen) == "fine" and len(anthropic.requests) == 2

    async def test_complete_collects_the_stream(self, anthropic):
        """complete() on the Anthropic path: the whole text and the usage with cache fields."""
        anthropic.enqueue(Reply(text="a short summary"))
        text, usage = await self.provider(anthropic).complete(HI, max_tokens=64)
        assert text == "a short summary" and usage.output > 0 and usage.prompt_tokens > 0
        body = anthropic.requests[0]
        assert body["max_tokens"] == 64 and body["messages"][0]["role"] == "user"
