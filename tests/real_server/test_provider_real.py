"""The provider against a real llama.cpp server: real usage, the real window, real streaming and
cancellation, and the tokenizer gap the budget's calibration exists for."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.base.tokens import TokenCounter
from agent_tui.llm.errors import LLMError
from agent_tui.llm.provider import Provider, StreamDone, TextChunk, UsageChunk
from tests.support.real_server import (
    MODEL,
    WINDOW,
    gemma_tokens,
    numeric_paste,
    rendered_tokens,
)

COUNTING = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "Count to 500: 1, 2, 3, 4, 5,"},
]
BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a shell command in the workspace",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}


@pytest.fixture
def provider(llama) -> Provider:
    return Provider(MODEL, api_base=llama.base_url, max_retries=1)


async def stream(provider: Provider, messages, **kw) -> list:
    return [event async for event in provider.stream(messages, **kw)]


class TestUsage:
    async def test_stream_reports_the_servers_own_count(self, llama, provider):
        """Text streams in pieces; usage.prompt_tokens is the templated prompt's token count."""
        events = await stream(provider, COUNTING, max_tokens=16)
        chunks = [e for e in events if isinstance(e, TextChunk)]
        usage = next(e.usage for e in events if isinstance(e, UsageChunk))
        assert len(chunks) > 1 and "".join(c.text for c in chunks).strip()
        assert usage.prompt_tokens == rendered_tokens(llama, COUNTING)
        assert usage.output == 16
        assert events[-1] == StreamDone("length")

    async def test_cached_prefix_still_counts(self, provider):
        """A repeated prompt is served from llama.cpp's cache yet reports the same prompt_tokens."""
        first = await provider.complete(COUNTING, max_tokens=4)
        second = await provider.complete(COUNTING, max_tokens=4)
        assert second[1].cache_read > 0
        assert second[1].prompt_tokens == first[1].prompt_tokens

    async def test_tools_are_part_of_the_prompt(self, llama, provider):
        """The template renders tool schemas, so offering a tool costs prompt tokens."""
        plain = await stream(provider, COUNTING, max_tokens=2)
        tooled = await stream(provider, COUNTING, tools=[BASH], max_tokens=2)
        without = next(e.usage for e in plain if isinstance(e, UsageChunk)).prompt_tokens
        with_tool = next(e.usage for e in tooled if isinstance(e, UsageChunk)).prompt_tokens
        assert with_tool == rendered_tokens(llama, COUNTING, [BASH])
        assert with_tool - without > 30


class TestWindow:
    async def test_prompt_past_the_window_is_a_context_length_error(self, llama, provider):
        """Past n_ctx the server answers 400; the provider raises LLMError('context_length')."""
        before = llama.overflows()
        huge = [{"role": "user", "content": numeric_paste(WINDOW * 2)}]
        with pytest.raises(LLMError) as caught:
            await provider.complete(huge, max_tokens=4)
        assert caught.value.kind == "context_length"
        assert "\n" not in str(caught.value)
        assert llama.overflows() == before + 1


class TestCancel:
    async def test_cancel_mid_stream_frees_the_only_slot(self, llama, provider):
        """Cancelling the consumer closes the stream; the server's one slot serves the next call."""
        cancelled_before = llama.cancellations()
        first_text = asyncio.Event()
        texts: list[str] = []

        async def consume() -> None:
            async for event in provider.stream(COUNTING, max_tokens=2000):
                if isinstance(event, TextChunk):
                    texts.append(event.text)
                    first_text.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first_text.wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # 2000 tokens would take the slot for tens of seconds; the next call must not wait that.
        text, usage = await asyncio.wait_for(provider.complete(COUNTING, max_tokens=4), 20)
        assert usage.output == 4 and texts
        assert llama.cancellations() == cancelled_before + 1


class TestTokenizerGap:
    def test_tiktoken_undercounts_numeric_text_by_a_third(self, llama):
        """On pasted numbers Gemma makes far more tokens than tiktoken's estimate."""
        text = numeric_paste(2000)
        raw = TokenCounter(MODEL).count_text(text)
        real = gemma_tokens(llama, text)
        assert (real - raw) / real >= 0.30
