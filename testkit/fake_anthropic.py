"""A local server speaking Anthropic's Messages API (`POST /v1/messages`), for cache tests.

litellm turns our OpenAI-format request into Anthropic's shape; this server receives exactly what
Anthropic would, records every body and header, checks what the real API checks (key and version
headers, alternating roles, tool_use answered by tool_result, extended thinking's rules and
signatures — see anthropic_rules.py —, at most 4 `cache_control` blocks, the window), and streams
scripted replies in Anthropic's SSE format (a `Reply.reasoning` as a signed thinking block).

It also models the prompt cache, so usage reports what a real request would cost: a request
reads from cache the longest prefix (tools → system → messages, `cache_control` ignored) that an
earlier request marked, looked up at most `lookback` blocks before one of its own marks; it
writes the rest up to its last mark. Prefixes shorter than `min_cache_tokens` are not cached.
`POST /v1/messages/count_tokens` answers the input tokens a request would be charged.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from testkit.anthropic_rules import (
    conversation_error,
    seal,
    search_error,
    thinking_enabled,
    thinking_error,
    thinking_events,
    word_pieces,
)
from testkit.fake_openai import Recorded, Reply
from testkit.tokenizer import count_claude

__all__ = ["CacheReport", "FakeAnthropic", "Reply", "canonical_blocks", "strip_cache_control"]


def strip_cache_control(value: Any) -> Any:
    """`value` with every `cache_control` key removed (marks do not change cached content)."""
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def canonical_blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request as the cache sees it: (block JSON without marks, marked?) in prefix order."""
    out: list[tuple[str, bool]] = []

    def add(kind: str, block: Any) -> None:
        marked = isinstance(block, dict) and "cache_control" in block
        out.append((json.dumps([kind, strip_cache_control(block)], sort_keys=True), marked))

    for tool in body.get("tools") or ():
        add("tool", tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or ():
        add("system", block)
    for index, message in enumerate(body.get("messages") or ()):
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or ()
        for part in parts:
            add(f"{index}:{message.get('role')}", part)
    return out


@dataclass(frozen=True)
class CacheReport:
    """What the cache model decided for one request (also sent as usage)."""

    input_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    marks: int


class FakeAnthropic:
    """The server; a context manager like FakeOpenAI, and scripted the same way (`Reply`)."""

    def __init__(
        self,
        window: int = 200_000,
        *,
        model_name: str = "claude-sonnet-4-5",
        api_key: str | None = None,
        min_cache_tokens: int = 1024,
        lookback: int = 20,
        responder: Callable[[dict], Reply] | None = None,
        counts_tokens: bool = True,
    ) -> None:
        self.window = window
        self.counts_tokens = counts_tokens
        """False: /v1/messages/count_tokens answers 404, like a proxy that does not know it."""
        self.model_name = model_name
        self.api_key = api_key
        """When set, a request whose x-api-key differs gets a 401."""
        self.min_cache_tokens = min_cache_tokens
        self.lookback = lookback
        self.responder = responder or (lambda body: Reply(text="ok"))
        self.requests: list[dict] = []
        """Every /v1/messages body received, in order (rejected ones included)."""
        self.recorded: list[Recorded] = []
        self.counted: list[dict] = []
        """Every body /v1/messages/count_tokens counted, in order."""
        self.reports: list[CacheReport] = []
        """The cache model's verdict for each accepted request."""
        self._cache: dict[str, int] = {}
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self.released = threading.Event()
        """Set on exit: stalled answers (`Reply.stall_after_chunks`) give their threads back."""
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> FakeAnthropic:
        handler = type("BoundHandler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    # -- the API's checks -----------------------------------------------------------------
    def validate(self, headers: dict[str, str], body: Any) -> tuple[int, str, str] | None:
        """(status, error type, message) the real API would answer, or None."""
        if self.api_key is not None and headers.get("x-api-key") != self.api_key:
            return 401, "authentication_error", "invalid x-api-key"
        if not headers.get("anthropic-version"):
            return 400, "invalid_request_error", "anthropic-version: header is required"
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 400, "invalid_request_error", "messages: Field required"
        if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
            return 400, "invalid_request_error", "max_tokens: Field required"
        if body.get("model") != self.model_name:
            return 404, "not_found_error", f"model: {body.get('model')}"
        problem = conversation_error(body["messages"]) or thinking_error(body) or search_error(body)
        if problem:
            return 400, "invalid_request_error", problem
        marks = sum(marked for _, marked in canonical_blocks(body))
        if marks > 4:
            return (
                400,
                "invalid_request_error",
                f"A maximum of 4 blocks with cache_control may be provided. Found {marks}.",
            )
        total = sum(_tokens(block) for block, _ in canonical_blocks(body))
        if total + body["max_tokens"] > self.window:
            return (
                400,
                "invalid_request_error",
                f"prompt is too long: {total} tokens > {self.window - body['max_tokens']} maximum",
            )
        return None

    def account(self, body: dict[str, Any]) -> CacheReport:
        """Apply the cache model to an accepted request; remember its marked prefixes."""
        blocks = canonical_blocks(body)
        hashes, sizes = [], []
        digest, size = hashlib.sha256(), 0
        for block, _ in blocks:
            digest.update(block.encode())
            size += _tokens(block)
            hashes.append(digest.hexdigest())
            sizes.append(size)
        marks = [i for i, (_, marked) in enumerate(blocks) if marked]
        read_end = -1
        with self._lock:
            for mark in marks:
                for j in range(mark, max(mark - self.lookback, -1), -1):
                    if self._cache.get(hashes[j]) is not None:
                        read_end = max(read_end, j)
                        break
            write_end = marks[-1] if marks else -1
            for mark in marks:
                if sizes[mark] >= self.min_cache_tokens:
                    self._cache[hashes[mark]] = sizes[mark]
        read = sizes[read_end] if read_end >= 0 else 0
        written = (
            sizes[write_end] - read
            if write_end > read_end and marks and sizes[write_end] >= self.min_cache_tokens
            else 0
        )
        total = sizes[-1] if sizes else 0
        report = CacheReport(total - read - written, read, written, len(marks))
        with self._lock:
            self.reports.append(report)
        return report

    def next_reply(self, body: dict) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        return self.responder(body)


COUNT_FIELDS = frozenset({"model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers"})
"""What a count_tokens body may hold."""


def _tokens(block_json: str) -> int:
    return max(1, count_claude(block_json))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeAnthropic

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, data: dict) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _error(self, status: int, kind: str, message: str) -> None:
        self._json(status, {"type": "error", "error": {"type": kind, "message": message}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake = self.fake
        with fake._lock:
            fake.recorded.append(
                Recorded(
                    self.path,
                    body if isinstance(body, dict) else None,
                    headers.get("x-api-key"),
                    headers,
                    0.0,
                )
            )
            if self.path.rstrip("/") == "/v1/messages" and isinstance(body, dict):
                fake.requests.append(body)
        if self.path.rstrip("/") == "/v1/messages/count_tokens" and fake.counts_tokens:
            self._count(headers, body)
            return
        if self.path.rstrip("/") != "/v1/messages":
            self._error(404, "not_found_error", f"Not found: {self.path}")
            return
        problem = fake.validate(headers, body)
        if problem:
            self._error(*problem)
            return
        report = fake.account(body)
        reply = fake.next_reply(body)
        if reply.status != 200:
            if reply.error_body:
                self._json(reply.status, reply.error_body)
            else:
                self._error(reply.status, "api_error", "scripted error")
            return
        self._stream(reply, report, body)

    def _count(self, headers: dict[str, str], body: Any) -> None:
        """`POST /v1/messages/count_tokens`: the input tokens the same request would be charged,
        by the same count as /v1/messages. Like the API it refuses the fields only a message
        request takes (max_tokens, stream)."""
        fake = self.fake
        extra = sorted(set(body) - COUNT_FIELDS) if isinstance(body, dict) else []
        if extra:
            self._error(400, "invalid_request_error", f"{extra[0]}: Extra inputs are not permitted")
            return
        problem = fake.validate(headers, {**body, "max_tokens": 1} if isinstance(body, dict) else body)
        if problem and "prompt is too long" not in problem[2]:  # counting a long one is the point
            self._error(*problem)
            return
        assert isinstance(body, dict)
        with fake._lock:
            fake.counted.append(body)
        self._json(200, {"input_tokens": sum(_tokens(block) for block, _ in canonical_blocks(body))})

    def _stream(self, reply: Reply, report: CacheReport, body: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = _events(self.fake.model_name, reply, report, thinking=thinking_enabled(body))
        if reply.web_searches and any(
            str(t.get("type", "")).startswith("web_search_") for t in body.get("tools") or ()
        ):
            events = _with_searches(events, reply)
        for i, event in enumerate(events):
            if reply.end_after_chunks is not None and i >= reply.end_after_chunks:
                break  # a body that ends cleanly before message_stop
            if reply.stall_after_chunks is not None and i >= reply.stall_after_chunks:
                self.wfile.flush()
                self.fake.released.wait(60)
                self.close_connection = True
                return
            data = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _events(model: str, reply: Reply, report: CacheReport, *, thinking: bool = False) -> list[dict]:
    """One reply as Anthropic's stream: message_start, content blocks (thinking first, when the
    request enabled it), message_delta (output tokens include the thinking), stop."""
    usage = {
        "input_tokens": report.input_tokens,
        "cache_creation_input_tokens": report.cache_creation_input_tokens,
        "cache_read_input_tokens": report.cache_read_input_tokens,
        "output_tokens": 1,
    }
    events: list[dict] = [
        {
            "type": "message_start",
            "message": {
                "id": f"msg_{uuid.uuid4().hex[:20]}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        }
    ]
    index, output = 0, 0
    if thinking:
        blocks, output, index = thinking_events(reply, index)
        events += blocks
    if reply.text:
        events.append(
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
        )
        for piece in word_pieces(reply.text, reply.words_per_chunk):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                }
            )
        events.append({"type": "content_block_stop", "index": index})
        output += count_claude(reply.text)
        index += 1
    for name, args in reply.tool_calls:
        arguments = json.dumps(args)
        events.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {
                    "type": "tool_use",
                    "id": f"toolu_{uuid.uuid4().hex[:20]}",
                    "name": name,
                    "input": {},
                },
            }
        )
        events.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": arguments},
            }
        )
        events.append({"type": "content_block_stop", "index": index})
        output += count_claude(arguments) + 8
        index += 1
    stop = reply.finish_reason or ("tool_use" if reply.tool_calls else "end_turn")
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": max(output, 1)},
        }
    )
    events.append({"type": "message_stop"})
    return events


def _with_searches(events: list[dict], reply: Reply) -> list[dict]:
    """The server's own searches as Anthropic streams them: a `server_tool_use` block with the
    query, then a `web_search_tool_result` block whole in its start event, before the text; the
    usage counts them in `server_tool_use.web_search_requests`."""
    blocks: list[dict] = []
    for number, (query, results) in enumerate(reply.web_searches):
        use_id = f"srvtoolu_{uuid.uuid4().hex[:20]}"
        at = 2 * number
        blocks += [
            {
                "type": "content_block_start",
                "index": at,
                "content_block": {"type": "server_tool_use", "id": use_id, "name": "web_search", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": at,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps({"query": query})},
            },
            {"type": "content_block_stop", "index": at},
            {
                "type": "content_block_start",
                "index": at + 1,
                "content_block": {
                    "type": "web_search_tool_result",
                    "tool_use_id": use_id,
                    "content": [
                        {
                            "type": "web_search_result",
                            "title": title,
                            "url": url,
                            "encrypted_content": seal(url),
                        }
                        for title, url in results
                    ],
                },
            },
            {"type": "content_block_stop", "index": at + 1},
        ]
    shift = len(blocks) // 5 * 2
    out = [events[0], *blocks]
    for event in events[1:]:
        if "index" in event:
            event = {**event, "index": event["index"] + shift}
        if event["type"] == "message_delta":
            usage = {**event["usage"], "server_tool_use": {"web_search_requests": len(reply.web_searches)}}
            event = {**event, "usage": usage}
        out.append(event)
    return out
