"""One local model server for three agents: OpenAI chat completions, Anthropic Messages, Responses.

`benchmarks/peers.py` runs agent-tui, Claude Code and Codex against the same scripted model, each
in the wire format it speaks: agent-tui the chat-completions API, Claude Code `/v1/messages`,
Codex `/v1/responses`. The script is the same for all three: the request that offers a shell tool
and holds no tool result yet is answered with one call of that tool running `BENCH_COMMAND`; every
other request (the answer after the tool, a title or summary request) with a short text.

Run as `python benchmarks/peer_server.py COMMAND [STEPS]`: it prints its port on the first line and serves
until stdin closes. `GET /stamps` returns (and forgets) every POST's arrival as time.time(), its
path and whether it carried a tool result, so the benchmark can tell the first request and the
one after the tool; and when its answer was sent (`replied`) and whether that answer called the
tool, for "reply → command". A user message `turnN go` (a chat turn typed in a TUI) is answered
with text naming N (`zqNx`), never a tool call, and its stamp carries `turn`: N, so the screen
can be polled for that turn's reply. With `BENCH_CPU_PID_FILE` set to a file holding a process
id, each stamp also carries `cpu`: that process's own CPU seconds (its threads' time on a core,
its children not counted) at the request's arrival, so a benchmark can tell the agent's work per step from
the time other processes took the cores. The server is lenient on purpose: it measures, it does
not validate.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

COMMAND = "true"
STEPS = 0
"""Tool calls per turn, counted in the turn (chat completions only; `benchmarks/steps.py` sets
it); 0: one call per conversation, told by any tool result in the request."""
_stamps: list[dict[str, Any]] = []
_lock = threading.Lock()

# The shell tool of each agent, and how its arguments carry a command line.
SHELL_TOOLS: dict[str, Any] = {
    "bash": lambda cmd: {"command": cmd},
    "Bash": lambda cmd: {"command": cmd, "description": "Run the benchmark command"},
    "shell": lambda cmd: {"command": ["bash", "-lc", cmd]},
    "exec_command": lambda cmd: {"cmd": cmd},
    "shell_command": lambda cmd: {"command": cmd},
}


def _tool_names(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or ():
        if not isinstance(tool, dict):
            continue
        name = tool.get("name") or (tool.get("function") or {}).get("name")
        if name:
            names.append(str(name))
    return names


def _has_tool_result(body: dict[str, Any]) -> bool:
    text = json.dumps(body.get("messages") or body.get("input") or [])
    return any(
        marker in text
        for marker in ('"role": "tool"', '"type": "tool_result"', '"type": "function_call_output"')
    )


def _results_this_turn(body: dict[str, Any]) -> int:
    """Tool results after the last user message (chat format): the steps this turn has run."""
    messages = body.get("messages") or []
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return sum(1 for m in messages[last_user + 1 :] if m.get("role") == "tool")


def watched_cpu() -> float | None:
    """CPU seconds of the process named in `BENCH_CPU_PID_FILE` (None without one): the sum of
    its live threads' time on a core, in nanoseconds (/proc/PID/stat counts 10 ms ticks, as
    much as a whole step takes). A thread that ended is not counted: the agent's threads live as
    long as it does, but for asyncio's short waiter per child process, which only waits."""
    name = os.environ.get("BENCH_CPU_PID_FILE")
    if not name:
        return None
    try:
        tasks = Path(f"/proc/{int(Path(name).read_text())}/task")
        total = 0
        for task in tasks.iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, IndexError, ValueError):
                continue  # the thread ended while we read
    except (OSError, ValueError):
        return None
    return total / 1e9


_TURN = re.compile(r"turn(\d+) go")


def chat_turn(body: dict[str, Any]) -> int | None:
    """N of the newest `turnN go` the request carries (a chat turn), or None."""
    found = _TURN.findall(json.dumps(body.get("messages") or body.get("input") or []))
    return int(found[-1]) if found else None


def answer_text(body: dict[str, Any]) -> str:
    turn = chat_turn(body)
    return "done: ok" if turn is None else f"Fixed the total for zq{turn}x."


def _plan(body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(tool, arguments) to call, or None for a text answer."""
    if chat_turn(body) is not None:
        return None
    if STEPS and "messages" in body:
        if _results_this_turn(body) >= STEPS:
            return None
    elif _has_tool_result(body):
        return None
    for name in _tool_names(body):
        if name in SHELL_TOOLS:
            return name, SHELL_TOOLS[name](COMMAND)
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, data: Any, content_type: str = "application/json") -> None:
        raw = data if isinstance(data, bytes) else json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/stamps":
            with _lock:
                out = list(_stamps)
                _stamps.clear()
            self._send(200, {"stamps": out})
        elif self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "bench-model", "object": "model"}]})
        else:
            self._send(404, {"error": "not found"})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        arrived = time.time()
        cpu = watched_cpu()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?", 1)[0]
        stamp = {
            "at": arrived,
            "path": path,
            "tool_result": _has_tool_result(body),
            "results": _results_this_turn(body),
            "shell_offered": any(n in SHELL_TOOLS for n in _tool_names(body)),
            "bytes": len(raw),
            "turn": chat_turn(body),
            "calls_tool": _plan(body) is not None and not path.endswith("/count_tokens"),
            "cpu": cpu,
        }
        with _lock:
            _stamps.append(stamp)
        try:
            self._answer(path, body, len(raw))
        finally:
            stamp["replied"] = time.time()  # the whole answer written and flushed

    def _answer(self, path: str, body: dict[str, Any], size: int) -> None:
        if path.endswith("/count_tokens"):
            self._send(200, {"input_tokens": max(1, size // 4)})
        elif path.endswith("/messages"):
            self._anthropic(body, size)
        elif path.endswith("/responses"):
            self._responses(body, size)
        elif path.endswith("/chat/completions"):
            self._chat(body, size)
        else:
            self._send(404, {"error": {"message": f"no route {path}"}})

    # -- streaming ---------------------------------------------------------------------
    def _sse(self, events: list[tuple[str | None, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            line = f"event: {name}\n" if name else ""
            payload = data if isinstance(data, str) else json.dumps(data)
            self.wfile.write(f"{line}data: {payload}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    def _chat(self, body: dict[str, Any], size: int) -> None:
        plan = _plan(body)
        base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "bench-model"}
        if plan:
            name, args = plan
            delta: dict[str, Any] = {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_" + uuid.uuid4().hex[:12],
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            delta, finish = {"role": "assistant", "content": answer_text(body)}, "stop"
        usage = {"prompt_tokens": size // 4, "completion_tokens": 5, "total_tokens": size // 4 + 5}
        chunks: list[tuple[str | None, Any]] = [
            (None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
            (None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
            (None, {**base, "choices": [], "usage": usage}),
            (None, "[DONE]"),
        ]
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": delta.get("content")}
            if "tool_calls" in delta:
                message["tool_calls"] = delta["tool_calls"]
            self._send(
                200,
                {
                    **base,
                    "object": "chat.completion",
                    "usage": usage,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                },
            )
            return
        self._sse(chunks)

    def _anthropic(self, body: dict[str, Any], size: int) -> None:
        plan = _plan(body)
        msg_id = "msg_" + uuid.uuid4().hex[:12]
        usage = {"input_tokens": size // 4, "output_tokens": 5}
        if plan:
            name, args = plan
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": "toolu_" + uuid.uuid4().hex[:12],
                "name": name,
                "input": {},
            }
            delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
            stop = "tool_use"
            full = {**block, "input": args}
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": answer_text(body)}
            stop = "end_turn"
            full = {"type": "text", "text": answer_text(body)}
        model = body.get("model", "claude-sonnet-4-5")
        if not body.get("stream"):
            self._send(
                200,
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [full],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        start = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": size // 4, "output_tokens": 1},
        }
        self._sse(
            [
                ("message_start", {"type": "message_start", "message": start}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )

    def _responses(self, body: dict[str, Any], size: int) -> None:
        plan = _plan(body)
        resp_id = "resp_" + uuid.uuid4().hex[:12]
        item_id = "item_" + uuid.uuid4().hex[:12]
        if plan:
            name, args = plan
            item: dict[str, Any] = {
                "type": "function_call",
                "id": item_id,
                "status": "completed",
                "call_id": "call_" + uuid.uuid4().hex[:12],
                "name": name,
                "arguments": json.dumps(args),
            }
            middle: list[tuple[str | None, Any]] = []
        else:
            item = {
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": answer_text(body), "annotations": []}],
            }
            middle = [
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item_id,
                        "output_index": 0,
                        "content_index": 0,
                        "delta": answer_text(body),
                    },
                )
            ]
        usage = {
            "input_tokens": size // 4,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": size // 4 + 5,
        }
        response = {
            "id": resp_id,
            "object": "response",
            "created_at": int(time.time()),
            "status": "in_progress",
            "model": body.get("model", "bench-model"),
            "output": [],
        }
        added = {**item, "status": "in_progress"}
        if added["type"] == "message":
            added["content"] = []
        self._sse(
            [
                ("response.created", {"type": "response.created", "response": response}),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": added},
                ),
                *middle,
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {
                        "type": "response.completed",
                        "response": {**response, "status": "completed", "output": [item], "usage": usage},
                    },
                ),
            ]
        )


def main() -> None:
    global COMMAND, STEPS
    COMMAND = sys.argv[1] if len(sys.argv) > 1 else "true"
    STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
