"""One error type for everything that goes wrong talking to a model, already phrased for the user.

litellm raises a dozen exception classes, some misleading (a missing OpenAI key arrives as an
InternalServerError). `classify` turns any of them into an `LLMError` whose `kind` drives the
retry policy and the loop (context_length → compact and retry) and whose message is one line
saying what to do next. No litellm import here: classification goes by class name and status,
so this module stays importable without paying for litellm.
"""

from __future__ import annotations

import email.utils
import re
import time
from typing import Any, Literal

Kind = Literal[
    "auth",
    "missing_key",
    "context_length",
    "rate_limit",
    "connection",
    "provider",
    "bad_request",
    "not_found",
    "bad_response",
]

RETRYABLE: frozenset[str] = frozenset({"rate_limit", "connection", "provider"})
"""Kinds worth another try: the same request may well succeed in a moment."""

_MISSING_KEY = re.compile(
    r"missing (credentials|[\w .-]*api[ _-]?key)|api_key client option must be set|"
    r"no api[ _-]?key|api[ _-]?key (is )?(not set|missing|required)",
    re.IGNORECASE,
)
_PREFIXES = re.compile(r"^(litellm\.\w+:\s*|\w+Error:\s*|\w+Exception\s*-\s*)+")


_WINDOW = re.compile(
    r"(?:maximum context length is|context size|n_ctx|context window of)\D{0,12}(\d{3,})"
    r"|tokens > (\d{3,}) maximum",
    re.I,
)
_PROMPT = re.compile(
    r"request \((\d+) tokens\) exceeds"  # llama.cpp
    r"|n_prompt_tokens\W{0,4}(\d+)"  # llama.cpp's error object
    r"|(\d+) in the messages"  # OpenAI, when max_tokens was sent
    r"|messages resulted in (\d+) tokens"  # OpenAI
    r"|prompt is too long: (\d+) tokens",  # Anthropic
    re.I,
)
"""How long a refused request was, by the provider's own count, as each names it."""


class LLMError(Exception):
    """A failed model call: `kind` says what class of failure, str() says what to do next."""

    def __init__(
        self,
        kind: Kind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.kind: Kind = kind
        self.message = message
        self.status = status
        """HTTP status when the provider answered, else None."""
        self.retry_after = retry_after
        """Seconds the provider asked us to wait (Retry-After), if it said."""
        self.detail = detail
        """The provider's own first line, for logs."""
        self.full_text = ""
        """The whole provider message (the window figure can sit past the first line)."""
        self.timed_out = False
        """A time limit ran out ([provider] *_timeout): retried at most once."""

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    @property
    def reported_window(self) -> int | None:
        """For a context-length error: the window the provider says it has, when it says."""
        if self.kind != "context_length":
            return None
        return _first_number(_WINDOW, self.full_text or self.detail)

    @property
    def reported_prompt(self) -> int | None:
        """For a context-length error: the refused request's tokens by the provider's count,
        when it says (llama.cpp, OpenAI and Anthropic all do): the figure calibration learns from."""
        if self.kind != "context_length":
            return None
        return _first_number(_PROMPT, self.full_text or self.detail)

    def __str__(self) -> str:
        return self.message


def _first_number(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    if match is None:
        return None
    return next(int(group) for group in match.groups() if group is not None)


class ProviderTimeout(TimeoutError):
    """A `[provider]` time limit ran out; the message names the server and the setting."""

    def __init__(self, where: str, setting: str, what: str) -> None:
        super().__init__(f"{where} {what} (provider.{setting})")
        self.where = where
        self.setting = setting
        self.what = what


def short_reason(exc: BaseException, limit: int = 160) -> str:
    """The provider's message without litellm's class-name prefixes, on one line."""
    text = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    text = _PREFIXES.sub("", text.strip()).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= limit else line[: limit - 1] + "…"


def retry_after_of(exc: BaseException) -> float | None:
    """Seconds from the error's Retry-After / retry-after-ms header, if any."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if not headers:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # an HTTP date
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _mro_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def classify(exc: BaseException, *, model: str, key_env: str | None, where: str) -> LLMError:
    """The LLMError for any exception litellm (or the transport under it) raised.

    `key_env` names the variable the key should come from (for the missing-key and auth
    messages); `where` names the endpoint (api_base or the provider) for connection messages.
    """
    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, ProviderTimeout):
        error = LLMError(
            "connection",
            f"{exc.where} did not answer in time: it {exc.what} (setting: provider.{exc.setting}).",
            detail=str(exc),
        )
        error.timed_out = True
        return error
    names = _mro_names(exc)
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    reason = short_reason(exc)
    var = key_env or "the provider's API key variable"

    def make(kind: Kind, message: str) -> LLMError:
        error = LLMError(kind, message, status=status, retry_after=retry_after_of(exc), detail=reason)
        error.full_text = str(exc)[:4000]
        return error

    if _MISSING_KEY.search(str(exc)):  # litellm says this with a 401 or, for OpenAI, a 500
        return make("missing_key", f"No API key for {model}: set {var} in your environment.")
    if "ContextWindowExceededError" in names:
        return make(
            "context_length",
            f"The conversation no longer fits {model}'s context window; compact it (/compact) and try again.",
        )
    if "AuthenticationError" in names or "PermissionDeniedError" in names or status in (401, 403):
        return make("auth", f"{model} rejected the API key; check {var}.")
    if "RateLimitError" in names or status == 429:
        return make("rate_limit", f"{model} is rate-limiting requests; wait a minute and retry.")
    if "NotFoundError" in names or status == 404:
        return make("not_found", f"Model {model} was not found ({reason}); check model.name.")
    chain = _chain_names(exc)
    if chain & _TIMEOUTS:
        return make("connection", f"{where} did not answer in time; check it and retry.")
    if chain & _TRANSPORT:
        return make("connection", f"Could not reach {where} ({reason}); check it and retry.")
    if "BadRequestError" in names or "UnprocessableEntityError" in names or status in (400, 422):
        return make("bad_request", f"{model} rejected the request: {reason}")
    return make("provider", f"{model} failed ({reason}); retry in a moment.")


_TIMEOUTS = frozenset({"Timeout", "APITimeoutError", "TimeoutException", "TimeoutError"})
_TRANSPORT = frozenset(
    {"APIConnectionError", "TransportError", "ClientConnectionError", "ClientPayloadError", "ConnectionError"}
)


def _chain_names(exc: BaseException, depth: int = 8) -> set[str]:
    """Class names along the cause/context chain. litellm reports a refused or dropped
    connection as an InternalServerError; only the chain shows the transport failure under it."""
    names: set[str] = set()
    seen: BaseException | None = exc
    while seen is not None and depth:
        names |= _mro_names(seen)
        seen = seen.__cause__ or seen.__context__
        depth -= 1
    return names
