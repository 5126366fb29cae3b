"""The wire formats a request can be sent in, as objects chosen once per route.

What differs between OpenAI's chat completions and Anthropic's Messages — the headers, how a body
is encoded (and which memo of encoded messages it reuses), how a streamed reply is decoded, whether
cache breakpoints and thinking blocks are sent, and how reasoning is asked for — is one object's
answers, so the provider and the direct call ask the route's format instead of testing its name.
A model reached through litellm has a format too: litellm encodes and decodes, and the format only
says whether the provider behind it takes Anthropic's cache marks and thinking budget.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.llm import anthropic_request, http_anthropic, http_openai
from agent_tui.llm.reasoning_params import ReasoningRequest, reasoning_request

if TYPE_CHECKING:
    from agent_tui.base.messages import TokenUsage
    from agent_tui.base.reasoning import ReasoningSettings
    from agent_tui.llm.http_common import Clock
    from agent_tui.llm.routes import Route
    from agent_tui.llm.stream import StreamEvent

Memo = http_openai.EncodedMessages | anthropic_request.EncodedTurns
"""The encoded form of the messages the last request sent, reused by the next (one per format)."""

OffLoop = Callable[[Callable[[], list[bytes]], int], Awaitable[list[bytes]]]
"""Runs an encoder, in a thread when it has much to encode (llm/direct.py's `_off_loop`)."""


@dataclass(frozen=True)
class Body:
    """What one request's body says, in whichever format it is encoded."""

    route: Route
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    max_tokens: int | None
    stream: bool
    extra: dict[str, Any]

    def parts(self) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]] | None, int | None]:
        """The encoders' leading arguments: model, messages, tools, reply limit."""
        return self.route.model, self.messages, self.tools, self.max_tokens


class WireFormat:
    """What a format says about requests in it; the direct formats also encode and decode."""

    name = ""
    cache_marks = False
    """Explicit `cache_control` breakpoints are sent, and a tool-use turn's thinking blocks go back
    unchanged (Anthropic's API); other providers cache on their own and get plain text."""
    thinking_budget = False
    """Reasoning is asked for as a thinking budget (Anthropic) rather than `reasoning_effort`."""
    streams_completions = False
    """A non-streamed reply is a stream collected (one parser, one shape): the streaming limits hold."""

    def reasoning(
        self, model: str, settings: ReasoningSettings, max_tokens: int | None, max_thinking: int | None
    ) -> ReasoningRequest:
        """The reasoning keys of a request in this format, and its reply limit."""
        return reasoning_request(self.thinking_budget, model, settings, max_tokens, max_thinking)

    def thinking_reserve(self, model: str, settings: ReasoningSettings, max_thinking: int | None) -> int:
        """The tokens a reply may spend thinking on top of its answer (0 when nothing is sent)."""
        return self.reasoning(model, settings, 0, max_thinking).max_tokens or 0


class DirectFormat(WireFormat):
    """A format agent-tui speaks itself over HTTP."""

    def headers(self, key: str) -> dict[str, str]:
        raise NotImplementedError

    def memo(self) -> Memo:
        raise NotImplementedError

    async def encode(
        self,
        route: Route,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        max_tokens: int | None,
        *,
        stream: bool,
        extra: dict[str, Any],
        memo: Memo | None,
        off_loop: OffLoop,
    ) -> list[bytes]:
        """The body as chunks whose concatenation is the JSON."""
        build, fresh = self.builder(Body(route, messages, tools, max_tokens, stream, extra), memo)
        return await off_loop(build, fresh)

    def builder(self, body: Body, memo: Memo | None) -> tuple[Callable[[], list[bytes]], int]:
        """The encoder of `body` in this format, reusing what `memo` holds of the last request, and
        how many messages it has still to encode (what decides whether it runs in a thread)."""
        raise NotImplementedError

    def events(self, response: Any, clock: Clock) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    async def completion(self, response: Any, clock: Clock) -> tuple[str, TokenUsage]:
        """A non-streamed reply's text and usage (a format that `streams_completions` never gets one)."""
        raise NotImplementedError


class OpenAIFormat(DirectFormat):
    name = "openai"

    def headers(self, key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {key}"}

    def memo(self) -> Memo:
        return http_openai.EncodedMessages()

    def builder(self, body: Body, memo: Memo | None) -> tuple[Callable[[], list[bytes]], int]:
        encoded = memo if isinstance(memo, http_openai.EncodedMessages) else None
        plan = encoded.plan(body.messages) if encoded is not None else None
        fresh = len(body.messages) - (plan[1] if plan is not None else 0)
        build = functools.partial(
            http_openai.encode,
            *body.parts(),
            stream=body.stream,
            provider=body.route.provider,
            extra=body.extra,
            memo=encoded,
            plan=plan,
        )
        return build, fresh

    def events(self, response: Any, clock: Clock) -> AsyncIterator[StreamEvent]:
        return http_openai.events(response, clock)

    async def completion(self, response: Any, clock: Clock) -> tuple[str, TokenUsage]:
        return http_openai.completion_text(await http_openai.read_json(response, clock))


class AnthropicFormat(DirectFormat):
    name = "anthropic"
    cache_marks = True
    thinking_budget = True
    streams_completions = True

    def headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key, "anthropic-version": http_anthropic.VERSION}

    def memo(self) -> Memo:
        return anthropic_request.EncodedTurns()

    def builder(self, body: Body, memo: Memo | None) -> tuple[Callable[[], list[bytes]], int]:
        turns = memo if isinstance(memo, anthropic_request.EncodedTurns) else None
        plan = turns.plan(body.messages) if turns is not None else None
        build = functools.partial(
            anthropic_request.encode,
            *body.parts(),
            stream=body.stream,
            extra=body.extra,
            memo=turns,
            plan=plan,
        )
        messages = body.messages
        unreused = turns.unreused(messages, plan) if turns is not None and plan is not None else len(messages)
        return build, unreused

    def events(self, response: Any, clock: Clock) -> AsyncIterator[StreamEvent]:
        return http_anthropic.events(response, clock)


class LitellmFormat(WireFormat):
    """Whatever litellm speaks to the provider; Anthropic's conventions when the provider is it."""

    name = "litellm"

    def __init__(self, provider: str | None) -> None:
        anthropic = provider == "anthropic"
        self.cache_marks = anthropic
        self.thinking_budget = anthropic


OPENAI = OpenAIFormat()
ANTHROPIC = AnthropicFormat()


def format_of(route: Route) -> WireFormat:
    """The route's format, chosen once (the provider keeps it)."""
    if route.wire == "anthropic":
        return ANTHROPIC
    if route.wire == "openai":
        return OPENAI
    return LitellmFormat(route.provider)
