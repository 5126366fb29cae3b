"""A strict local OpenAI-compatible server for tests and benchmarks.

Every agent-loop test talks to the model through litellm over real HTTP to this server, so what
it accepts has to be what a real provider accepts: a prompt over the window gets OpenAI's
context-length error, tool calls and tool results that do not pair up get a 400, an unknown model
a 404. It records every request body and its Authorization header, answers with scripted
`Reply`s (text, tool calls, errors, dropped connections, delays), and streams in OpenAI's SSE
format. It runs in a daemon thread so sync code, async tests and benchmarks can all use it.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from testkit.openai_shapes import (
    alternation_error,
    build_chunks,
    build_completion,
    count_prompt_tokens,
    error_body,
    invalid_arguments_error,
    pairing_error,
    shape_error,
    window_error,
    with_citations,
)

log = logging.getLogger(__name__)

HOLD_LIMIT = 60.0
"""Longest a held stream waits (a failed test must not leave the server thread stuck)."""


@dataclass(frozen=True)
class Reply:
    """One scripted answer of the server."""

    text: str = ""
    """Assistant text, streamed in several deltas."""
    reasoning: str = ""
    """Streamed first as `reasoning_content` deltas (llama.cpp, DeepSeek), counted as reasoning
    tokens in the usage. The Anthropic server streams it as a signed thinking block instead (when
    the request enables thinking)."""
    redacted_thinking: tuple[str, ...] = ()
    """Anthropic only: payloads streamed (sealed) as redacted_thinking blocks after the thinking."""
    tool_calls: list[tuple[str, dict | str]] = field(default_factory=list)
    """(name, arguments) pairs; the server generates the call ids. A str is sent verbatim (a
    call cut off mid-arguments: `'{"path": "x", "content": "abc'`)."""
    status: int = 200
    """HTTP status; anything but 200 sends `error_body` (or a default error of that status)."""
    retry_after: float | None = None
    """Seconds sent in a Retry-After header (with 429 or 5xx)."""
    error_body: dict | None = None
    """JSON body for an error status; default: OpenAI's shape for that status."""
    drop_connection: bool = False
    """Close the socket before sending anything (after `delay`)."""
    drop_after_chunks: int | None = None
    """Streaming only: send this many SSE chunks, then close the socket mid-stream."""
    delay: float = 0
    """Seconds to wait before answering."""
    chunk_delay: float = 0
    """Seconds to wait between SSE chunks (cancellation tests)."""
    usage: dict | None = None
    """Usage object to report instead of the computed one."""
    cached_tokens: int = 0
    """Reported as usage.prompt_tokens_details.cached_tokens."""
    finish_reason: str | None = None
    """Override of the finish reason (default: tool_calls when there are calls, else stop)."""
    words_per_chunk: int = 2
    """How many words each streamed text delta carries."""
    hang: bool = False
    """Accept the request and never answer (until the client leaves or the server stops)."""
    stall_after_chunks: int | None = None
    """Streaming only: send this many SSE chunks, then go silent (as `hang`)."""
    end_after_chunks: int | None = None
    """Streaming only: send this many SSE chunks, then end the body cleanly — no finish reason,
    no `[DONE]`: a stream cut before its end that the transport does not notice."""
    raw: tuple[str, str] | None = None
    """(content type, body) sent as a 200 instead of the reply (an HTML page, text)."""
    hold: threading.Event | None = None
    """Streaming only: after `hold_after` chunks, wait until this is set before sending the
    rest. A test sets it once it has seen what it waits for (a turn mid-stream, two streams at
    once), so it syncs on events rather than on delays a busy machine can outrun."""
    hold_after: int = 2
    """Chunks sent before holding (0: hold before the first; the client is still waiting)."""
    web_searches: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    """(query, [(title, url)]) searches the server runs itself, when the request asked for them.
    Anthropic: its web_search tool's server_tool_use + web_search_tool_result blocks before the
    text. OpenAI (a request with `web_search_options`): the sources as the text's `url_citation`
    annotations (the query is not reported in that shape)."""


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    path: str
    """URL path, e.g. /v1/chat/completions."""
    body: dict[str, Any] | None
    """Parsed JSON body (None for GET or a body that did not parse)."""
    authorization: str | None
    """The Authorization header as sent."""
    headers: dict[str, str]
    """All request headers, lower-cased names."""
    received_at: float
    """time.monotonic() when the request arrived (retry tests measure the waits)."""


def _echo(request: dict[str, Any]) -> Reply:
    """Default responder: a short text naming the last user message."""
    last = next((m for m in reversed(request["messages"]) if m.get("role") == "user"), None)
    content = last.get("content") if last else ""
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return Reply(text=f"echo: {str(content)[:80]}")


class FakeOpenAI:
    """The server. Use as a context manager or call start()/stop()."""

    def __init__(
        self,
        window: int = 128_000,
        responder: Callable[[dict], Reply] | None = None,
        model_name: str = "fake-model",
        api_key: str | None = None,
        strict_template: bool = False,
        also_serves: tuple[str, ...] = (),
        token_scale: float = 1.0,
    ) -> None:
        self.window = window
        self.token_scale = token_scale
        """Tokens this server makes of a text, relative to its tokenizer: above 1 it counts like
        a model whose tokenizer splits digits one by one (Gemma, Llama) — more than any client
        estimate, in its usage and in its context-length errors alike."""
        self.also_serves = also_serves
        """Other model names the server answers for (a command's `model:` on the same server)."""
        self.strict_template = strict_template
        """Answer 500 to two user (or two assistant) messages in a row, like Gemma's template."""
        self.responder = responder or _echo
        self.model_name = model_name
        self.api_key = api_key
        """When set, a request without `Bearer <api_key>` gets a 401."""
        self.requests: list[dict] = []
        """Every chat-completions body received, in order (rejected ones included)."""
        self.recorded: list[Recorded] = []
        """Every request of any path, with its headers."""
        self.stream_aborts = 0
        """Streams the client closed before the server finished writing them."""
        self.aborted = threading.Event()
        """Set when a client closes a stream early."""
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._sockets: set[socket.socket] = set()
        self._call_counter = 0
        self.released = threading.Event()
        """Set on stop: hanging and stalled answers give their threads back."""

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> FakeOpenAI:
        server = _QuietServer(("127.0.0.1", 0), _make_handler(self))
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self.released.set()
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:  # idle keep-alive connections would otherwise linger
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def litellm_model(self) -> str:
        """The model name to give litellm (the openai/ prefix makes it use this API shape)."""
        return f"openai/{self.model_name}"

    # -- scripting ----------------------------------------------------------------------------
    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def clear_queue(self) -> None:
        """Drop the scripted replies not yet consumed (a test step that ended early)."""
        with self._lock:
            self._queue.clear()

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        return len(self._queue)

    @property
    def authorizations(self) -> list[str | None]:
        return [r.authorization for r in self.recorded if r.path.endswith("/chat/completions")]

    def prompt_tokens_of(self, request: dict[str, Any]) -> int:
        """What this server counts for a request body (what it reports as prompt_tokens)."""
        return round(count_prompt_tokens(request) * self.token_scale)

    def _next_reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.responder(request)

    def _new_call_id(self) -> str:
        with self._lock:
            self._call_counter += 1
            return f"call_{self._call_counter:06d}"

    # -- request handling (runs on the server's threads) --------------------------------------
    def _record(self, handler: BaseHTTPRequestHandler, body: dict | None) -> None:
        headers = {k.lower(): v for k, v in handler.headers.items()}
        rec = Recorded(handler.path, body, headers.get("authorization"), headers, time.monotonic())
        with self._lock:
            self.recorded.append(rec)
            if handler.path.endswith("/chat/completions") and body is not None:
                self.requests.append(body)

    def _validate(self, handler: BaseHTTPRequestHandler, body: Any) -> tuple[int, dict] | None:
        """The 4xx a real provider would answer, or None when the request is acceptable."""
        if self.api_key is not None:
            if handler.headers.get("Authorization") != f"Bearer {self.api_key}":
                return 401, error_body(401)
        problem = shape_error(body)
        if problem:
            return 400, problem
        if body["model"] != self.model_name and body["model"] not in self.also_serves:
            return 404, error_body(404, model=body["model"])
        if "web_search_options" in body and "search" not in body["model"]:
            # As OpenAI: only its dedicated search models (gpt-4o-search-preview, …) take it.
            return 400, {
                "error": {
                    "message": "web_search_options is not supported with this model.",
                    "type": "invalid_request_error",
                    "param": "web_search_options",
                    "code": None,
                }
            }
        problem = pairing_error(body["messages"])
        if problem:
            return 400, problem
        problem = invalid_arguments_error(body["messages"])  # llama.cpp parses every call
        if problem:
            return 500, problem
        problem = alternation_error(body["messages"]) if self.strict_template else None
        if problem:
            return 500, problem
        prompt = self.prompt_tokens_of(body)
        max_tokens = body.get("max_completion_tokens") or body.get("max_tokens")
        problem = window_error(self.window, prompt, max_tokens)
        if problem:
            return 400, problem
        return None

    def _handle_chat(self, h: _Handler, body: dict) -> None:
        rejected = self._validate(h, body)
        if rejected:
            h.send_json(*rejected)
            return
        reply = self._next_reply(body)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.hang:
            self.released.wait(60)
            h.drop()
            return
        if reply.raw is not None:
            content_type, text = reply.raw
            raw = text.encode()
            h.send_response(200)
            h.send_header("Content-Type", content_type)
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw)
            return
        if reply.drop_connection:
            h.drop()
            return
        if reply.status != 200:
            extra = {}
            if reply.retry_after is not None:
                extra["Retry-After"] = f"{reply.retry_after:g}"
            body_out = reply.error_body or error_body(reply.status, model=body["model"])
            h.send_json(reply.status, body_out, extra)
            return
        calls = [(self._new_call_id(), name, args) for name, args in reply.tool_calls]
        prompt = self.prompt_tokens_of(body)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks = build_chunks(self.model_name, reply, calls, prompt, include_usage)
            if reply.web_searches and "web_search_options" in body:
                chunks = with_citations(chunks, reply)
            self._stream(h, chunks, reply)
        else:
            h.send_json(200, build_completion(self.model_name, reply, calls, prompt))

    def _stream(self, h: _Handler, chunks: list[dict], reply: Reply) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        payloads = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
        try:
            for i, payload in enumerate(payloads):
                if reply.drop_after_chunks is not None and i >= reply.drop_after_chunks:
                    h.drop()
                    return
                if reply.stall_after_chunks is not None and i >= reply.stall_after_chunks:
                    self.released.wait(60)
                    h.drop()
                    return
                if reply.end_after_chunks is not None and i >= reply.end_after_chunks:
                    break
                if i and reply.chunk_delay:
                    time.sleep(reply.chunk_delay)
                if i == reply.hold_after and reply.hold is not None:
                    reply.hold.wait(HOLD_LIMIT)
                data = payload.encode()
                h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                h.wfile.flush()
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with self._lock:
                self.stream_aborts += 1
            self.aborted.set()
            h.close_connection = True


class _QuietServer(ThreadingHTTPServer):
    """Client hang-ups are part of the tests (cancellation, drops): log them, do not print."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("fake-openai: connection from %s ended with an error", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive, like the real APIs; the owning FakeOpenAI does the work."""

    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle keep-alive connection gives its thread back after this
    fake: FakeOpenAI

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle's algorithm and the
        # client's delayed ACK add 40 ms to every response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.fake._lock:
            self.fake._sockets.add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with self.fake._lock:
                self.fake._sockets.discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("fake-openai: " + format, *args)

    def send_json(self, status: int, data: dict, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)

    def drop(self) -> None:
        """Close the socket abruptly, mid-response or before one."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _read_body(self) -> tuple[bytes, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return raw, json.loads(raw) if raw else None
        except ValueError:
            return raw, None

    def do_GET(self) -> None:
        self.fake._record(self, None)
        if self.path.rstrip("/") == "/v1/models":
            model = {"id": self.fake.model_name, "object": "model", "created": 0, "owned_by": "fake"}
            self.send_json(200, {"object": "list", "data": [model]})
        else:
            self.send_json(404, error_body(404, path=self.path))

    def do_POST(self) -> None:
        _, body = self._read_body()
        self.fake._record(self, body if isinstance(body, dict) else None)
        if self.path.rstrip("/") != "/v1/chat/completions":
            self.send_json(404, error_body(404, path=self.path))
            return
        if not isinstance(body, dict):
            self.send_json(400, error_body(400, message="We could not parse the JSON body."))
            return
        self.fake._handle_chat(self, body)


def _make_handler(fake: FakeOpenAI) -> type[_Handler]:
    return type("BoundHandler", (_Handler,), {"fake": fake})
