"""The strict local server in its own process, stamping when each request's first byte arrived.

Benchmarks run it as `python benchmarks/stamp_server.py [WINDOW] [--anthropic]` (the OpenAI
chat-completions fake, or with --anthropic the Messages API fake): it prints its port on the
first line of stdout and serves until stdin closes. `GET /stamps` returns (and forgets) the arrivals so far:
for each POST, `first` (the request line read) and `body` (the whole body read), both as
time.time() and time.monotonic() — the monotonic clock is the machine's, comparable across
processes — and its `path` (a pre-flight count, `/apply-template`, is not the model's request). A server in another process keeps its parsing off the measured process's GIL.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testkit import fake_anthropic, fake_openai  # noqa: E402
from testkit.fake_anthropic import FakeAnthropic  # noqa: E402
from testkit.fake_openai import FakeOpenAI, Reply  # noqa: E402

_stamps: list[dict[str, float]] = []
_lock = threading.Lock()


def _stamped(base: type) -> type:
    """`base` (a fake's request handler) stamping each POST's first line and serving /stamps."""

    class Stamped(base):  # type: ignore[misc,valid-type]
        def parse_request(self) -> bool:
            wall, mono = time.time(), time.monotonic()
            ok = bool(super().parse_request())
            if ok and self.command == "POST":
                with _lock:
                    _stamps.append({"first_wall": wall, "first_mono": mono, "path": self.path})
            return ok

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/stamps":
                with _lock:
                    out = list(_stamps)
                    _stamps.clear()
                raw = json.dumps({"stamps": out}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
                return
            parent = getattr(super(), "do_GET", None)
            if parent is None:
                self.send_error(404)
                return
            parent()

    return Stamped


def _make_handler(fake: FakeOpenAI) -> type:
    return type("BoundHandler", (_stamped(fake_openai._Handler),), {"fake": fake})


def _responder(reply: Any = Reply) -> Callable[[dict], Any]:
    """Echo, or run one tool when the prompt asks for `tool:` (the startup benchmark's turn)."""

    def respond(request: dict) -> Any:
        last = request["messages"][-1]
        content = last.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        if last.get("role") == "user" and "tool:" in text:
            return reply(tool_calls=[("list_dir", {"path": "."})])
        # benchmarks/big_output.py: one big output that was not streamed into the store.
        if last.get("role") == "user" and "big-grep:" in text:
            return reply(tool_calls=[("grep", {"pattern": "took", "max_results": 10_000_000})])
        if last.get("role") == "user" and "big-read:" in text:
            return reply(tool_calls=[("read_file", {"path": "big.log"})])
        return reply(text="done: ok")

    return respond


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--anthropic"]
    window = int(args[0]) if args else 4_000_000
    if "--anthropic" in sys.argv:
        fake_anthropic._Handler = _stamped(fake_anthropic._Handler)  # type: ignore[misc]
        with FakeAnthropic(window=window, responder=_responder(fake_anthropic.Reply)) as anthropic:
            print(anthropic.base_url.rsplit(":", 1)[1], flush=True)
            sys.stdin.read()
        return
    fake_openai._make_handler = _make_handler  # type: ignore[assignment]
    with FakeOpenAI(window=window, responder=_responder()) as server:
        print(server.port, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
