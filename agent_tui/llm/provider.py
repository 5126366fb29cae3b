"""The model behind one interface: streamed replies, one-shot completions, our own retries.

Two ways to a model (llm/routes.py): OpenAI-compatible and Anthropic servers are called directly
over httpx (llm/direct.py: no litellm import, request built off the UI loop); every other provider
goes through litellm (imported lazily via `lazy.litellm()`). Either way the rest of the code sees
plain events and one error type, and the same `[provider]` time limits apply. Retries are ours
alone — litellm's and the OpenAI SDK's are switched off — and happen only before anything of an
attempt was yielded, so a retry can never repeat streamed text; a timeout is retried once at
most. Cancelling the consuming task closes the HTTP stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from agent_tui.base.errors_text import one_line
from agent_tui.base.messages import TokenUsage
from agent_tui.base.reasoning import ReasoningSettings
from agent_tui.llm import catalog, direct, via_litellm
from agent_tui.llm.errors import LLMError, classify
from agent_tui.llm.http_common import Clock, TimeLimits
from agent_tui.llm.lazy import litellm, warm_in_background
from agent_tui.llm.reasoning_params import continues_without_thinking
from agent_tui.llm.routes import Route, route_for
from agent_tui.llm.stream import (
    RetryWait,
    StreamDone,
    StreamEvent,
    TextChunk,
    ToolCallsReady,
    UsageChunk,
)
from agent_tui.llm.wire_format import DirectFormat, Memo, WireFormat, format_of
from agent_tui.runtime import instrument

_first_request_marked = False


def _mark_first_request() -> None:
    """Record the modules loaded when this process's first request starts (tests/test_startup_
    imports.py pins that none of the heavy ones is among them)."""
    global _first_request_marked
    _first_request_marked = True
    instrument.mark_modules("first_request")


__all__ = [
    "LLMError",
    "Provider",
    "StreamDone",
    "StreamEvent",
    "TextChunk",
    "TimeLimits",
    "ToolCallsReady",
    "UsageChunk",
    "provider_of",
]

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = direct.PLACEHOLDER_KEY
MAX_RETRY_WAIT = 60.0
"""Longest single wait between tries, whatever Retry-After says."""


MAX_TIMEOUT_TRIES = 2
"""A time limit that ran out is retried once: a hung server costs two limits, not max_retries."""


def provider_of(model: str) -> str | None:
    """litellm's provider for a model name ("anthropic" for "claude-sonnet-4-5"), or None.
    Read from litellm's price map and the name's prefix, without importing litellm."""
    return catalog.provider_of(model)


class Provider:
    """One configured model. Cheap to build: nothing heavy is imported before the first call."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 600,
        max_retries: int = 3,
        extra: dict[str, Any] | None = None,
        *,
        retry_base_delay: float = 1.0,
        limits: TimeLimits | None = None,
        transport: str = "auto",
        env_key_for_api_base: bool = True,
    ) -> None:
        self.model = model
        """The model name as configured (what messages show the user)."""
        self.api_base = api_base
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max(1, max_retries)
        """Tries in all, the first included (3 = one call and at most two retries)."""
        self.extra = dict(extra or {})
        """Further keyword arguments for litellm.acompletion (temperature, headers, …)."""
        self.retry_base_delay = retry_base_delay
        """First backoff wait in seconds (doubles per try) when the provider names none."""
        self.limits = limits or TimeLimits(total=timeout)
        """Connect, first byte, silence between chunks, whole call (`[provider]`)."""
        self.route: Route = route_for(model, api_base, transport)
        """Direct HTTP (OpenAI / Anthropic format) or litellm."""
        self.env_key_for_api_base = env_key_for_api_base
        """False: never let litellm fill in a key from the environment for `api_base` (one a
        project file chose must not receive the user's OPENAI_API_KEY); a placeholder goes."""
        self._resolved: tuple[str, dict[str, Any]] | None = None
        self._sent_placeholder = False
        self.format: WireFormat = format_of(self.route)
        """Encoding, decoding, cache marks and reasoning parameters of the route's format."""
        self._encoded: Memo | None = self.format.memo() if isinstance(self.format, DirectFormat) else None
        self.reasoning = ReasoningSettings()
        """`[model] reasoning_effort` / `thinking_budget_tokens`; `/effort` changes it for the session."""
        self.max_thinking: int | None = None
        """The most a thinking budget may take (the session sets it from the window)."""
        self.notices: list[str] = []
        """One-line notices for the user about how requests were sent (the session relays them)."""
        self._said: set[str] = set()
        if not self.route.direct:
            warm_in_background()  # its import takes seconds: start it now, off the UI loop

    # -- configuration ------------------------------------------------------------------------
    @property
    def where(self) -> str:
        """The endpoint named in connection errors."""
        if self.api_base:
            return self.api_base
        if self.route.direct:  # the server itself, e.g. https://api.anthropic.com
            scheme, _, rest = self.route.url.partition("://")
            return f"{scheme}://{rest.split('/', 1)[0]}"
        return provider_of(self.model) or "the provider"

    @property
    def supports_cache_control(self) -> bool:
        """True when the provider takes explicit `cache_control` breakpoints (Anthropic's API);
        others cache on their own, or not at all, and get plain text (see llm/cache.py)."""
        return self.format.cache_marks

    @property
    def takes_thinking_blocks(self) -> bool:
        """Anthropic's API: a tool-use turn's thinking blocks must be sent back unchanged."""
        return self.supports_cache_control

    def _notice(self, text: str | None) -> None:
        if text and text not in self._said:
            self._said.add(text)
            self.notices.append(text)

    @property
    def thinking_reserve(self) -> int:
        """Tokens a reply may spend thinking beyond its answer: the request's max_tokens grows by
        this much, so the budget reserves it too (Anthropic's thinking budget; 0 when off)."""
        return self.format.thinking_reserve(self._litellm_model(), self.reasoning, self.max_thinking)

    def _with_reasoning(
        self, messages: list[dict[str, Any]], max_tokens: int | None
    ) -> tuple[dict[str, Any], int | None]:
        """The reasoning keys for this request and its reply limit (see llm/reasoning_params)."""
        plan = self.format.reasoning(self._litellm_model(), self.reasoning, max_tokens, self.max_thinking)
        self._notice(plan.notice)
        if "thinking" in plan.extra and continues_without_thinking(messages):
            self._notice(
                "This tool-use turn began without thinking blocks; its remaining steps go without "
                "extended thinking (the API rejects it there)."
            )
            return {}, max_tokens
        return plan.extra, plan.max_tokens

    def key_env(self) -> str | None:
        """The variable the key comes from: the configured one, else litellm's default name."""
        if self.api_key_env:
            return self.api_key_env
        if self.route.direct:
            return self.route.key_env
        try:
            missing = litellm().validate_environment(self._litellm_model()).get("missing_keys")
        except Exception:  # noqa: BLE001 - unknown providers: no name to offer
            missing = None
        if missing:
            return str(missing[0])
        provider = provider_of(self._litellm_model())
        return f"{provider.upper()}_API_KEY" if provider else None

    def _litellm_model(self) -> str:
        # A bare name behind an api_base ("llama3" on Ollama's OpenAI endpoint) means the
        # OpenAI-compatible API: without the prefix litellm would refuse the name.
        if self.api_base and provider_of(self.model) is None:
            return f"openai/{self.model}"
        return self.model

    def _params(self) -> tuple[str, dict[str, Any]]:
        """The model name and the fixed keyword arguments of every call (computed once)."""
        if self._resolved is not None:
            return self._resolved
        model = self._litellm_model()
        params: dict[str, Any] = {
            "timeout": self.limits.total,
            "num_retries": 0,  # litellm's retries off: ours are the only ones
            "max_retries": 0,  # and the OpenAI SDK's under it
        }
        key: str | None = None
        if self.api_key_env:
            key = os.environ.get(self.api_key_env) or None
            if key is None and not self.api_base:
                raise LLMError("missing_key", f"No API key for {self.model}: set {self.api_key_env}.")
        if self.api_base:
            params["api_base"] = self.api_base
            if key is None and (not self.env_key_for_api_base or not self._default_key_present(model)):
                key = PLACEHOLDER_KEY
        if key is not None:
            params["api_key"] = key
        params.update(self.extra)
        self._resolved = (model, params)
        return self._resolved

    @staticmethod
    def _default_key_present(model: str) -> bool:
        try:
            return bool(litellm().validate_environment(model).get("keys_in_environment"))
        except Exception:  # noqa: BLE001
            return False

    def _error(self, exc: BaseException) -> LLMError:
        env: str | None
        try:
            if self._sent_placeholder or (
                self._resolved and self._resolved[1].get("api_key") == PLACEHOLDER_KEY
            ):
                env = "model.api_key_env (no key was sent)"
            else:
                env = self.key_env()
        except Exception:  # noqa: BLE001 - naming the variable must never mask the error
            env = self.api_key_env
        return classify(exc, model=self.model, key_env=env, where=self.where)

    def _wait(self, error: LLMError, attempt: int) -> float:
        if error.retry_after is not None:
            return float(min(error.retry_after, MAX_RETRY_WAIT))
        base = self.retry_base_delay * 2 ** (attempt - 1)
        return float(min(base * random.uniform(0.8, 1.2), MAX_RETRY_WAIT))

    def _next_try(self, exc: BaseException, attempt: int, yielded: bool, timeouts: int = 0) -> RetryWait:
        """The wait before the next try, or the classified error raised when there is none."""
        error = self._error(exc)
        last = attempt >= self.max_retries or (error.timed_out and timeouts >= MAX_TIMEOUT_TRIES)
        if yielded or not error.retryable or last:
            if attempt > 1 and error.retryable:
                error.message = f"{error.message} (gave up after {attempt} tries)"
            raise error from exc
        wait = self._wait(error, attempt)
        log.warning(
            "%s: %s; try %d of %d in %.2fs", self.model, error.detail, attempt + 1, self.max_retries, wait
        )
        reason = one_line(error.detail or error.message, 200)
        return RetryWait(attempt + 1, self.max_retries, wait, error.kind, reason)

    async def _retry_or_raise(
        self, exc: BaseException, attempt: int, yielded: bool, timeouts: int = 0
    ) -> None:
        """Sleep before the next try, or raise the classified error when there is none."""
        await asyncio.sleep(self._next_try(exc, attempt, yielded, timeouts).wait)

    # -- calls ----------------------------------------------------------------------------------
    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """The reply as events: TextChunk*, then ToolCallsReady?, UsageChunk?, StreamDone; a
        RetryWait before each wait between tries (only before anything of a try was yielded)."""
        if instrument.enabled() and not _first_request_marked:
            _mark_first_request()
        reasoning, max_tokens = self._with_reasoning(messages, max_tokens)
        attempt = timeouts = 0
        while True:
            attempt += 1
            yielded = False
            try:
                attempt_events = self._attempt(messages, tools, max_tokens, reasoning)
                async with contextlib.aclosing(attempt_events) as events:
                    async for event in events:
                        yielded = yielded or isinstance(event, TextChunk)
                        yield event
                return
            except Exception as exc:  # noqa: BLE001 - every failure is classified below
                failure: Exception = exc
            timeouts += self._error(failure).timed_out
            retry = self._next_try(failure, attempt, yielded, timeouts)
            yield retry  # before the wait: the user sees why nothing arrives
            await asyncio.sleep(retry.wait)

    def _attempt(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        max_tokens: int | None,
        reasoning: dict[str, Any],
    ) -> AsyncGenerator[StreamEvent, None]:
        if self.route.direct:
            return self._direct_call(extra=reasoning).stream(messages, tools, max_tokens)
        model, params = self._params()
        if reasoning:
            # drop_params: a provider litellm knows cannot take the key gets the request without it.
            params = {**params, **reasoning, "drop_params": True}
        clock = Clock(self.limits, self.where)
        return via_litellm.stream(model, params, messages, tools, max_tokens, clock)

    def _direct_call(self, streamed: bool = True, extra: dict[str, Any] | None = None) -> direct.DirectCall:
        if self.api_base and not self.env_key_for_api_base:
            key = PLACEHOLDER_KEY  # a project file's api_base: no key of the user's goes there
        else:
            key = direct.key_for(self.route, self.model, self.api_base, self.api_key_env)
        self._sent_placeholder = key == PLACEHOLDER_KEY
        limits = self.limits if streamed else self.limits.unstreamed()
        body_extra = {**self.extra, **(extra or {})}
        assert isinstance(self.format, DirectFormat)  # only a direct route gets here
        return direct.DirectCall(
            self.route, self.format, key, body_extra, Clock(limits, self.where), self._encoded
        )

    async def complete(
        self, messages: list[dict[str, Any]], max_tokens: int | None = None
    ) -> tuple[str, TokenUsage]:
        """One non-streamed reply (summaries, titles): its text and usage."""
        attempt = timeouts = 0
        while True:
            attempt += 1
            try:
                if self.route.direct:
                    # Anthropic's complete() streams: the usual limits hold; OpenAI's does not.
                    streamed = self.format.streams_completions
                    return await self._direct_call(streamed).complete(messages, max_tokens)
                model, params = self._params()
                clock = Clock(self.limits.unstreamed(), self.where)
                return await via_litellm.complete(model, params, messages, max_tokens, clock)
            except Exception as exc:  # noqa: BLE001 - every failure is classified below
                timeouts += self._error(exc).timed_out
                await self._retry_or_raise(exc, attempt, yielded=False, timeouts=timeouts)
