"""The strict local server in its own process, stamping when each request's first byte arrived.

Benchmarks run it as `python benchmarks/stamp_server.py`: it prints its port on the first line of
stdout and serves until stdin closes. `GET /stamps` returns (and forgets) the arrivals so far:
for each POST, `first` (the request line read) and `body` (the whole body read), both as
time.time() and time.monotonic() — the monotonic clock is the machine's, comparable across
processes. A server in another process keeps its parsing off the measured process's GIL.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testkit import fake_openai  # noqa: E402
from testkit.fake_openai import FakeOpenAI, Reply  # noqa: E402

_stamps: list[dict[str, float]] = []
_lock = threading.Lock()


def _make_handler(fake: FakeOpenAI) -> type:
    base = fake_openai._Handler

    class Stamped(base):  # type: ignore[misc,valid-type]
        def parse_request(self) -> bool:
            wall, mono = time.time(), time.monotonic()
            ok = bool(super().parse_request())
            if ok and self.command == "POST":
                with _lock:
                    _stamps.append({"first_wall": wall, "first_mono": mono})
            return ok

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/stamps":
                with _lock:
                    out = list(_stamps)
                    _stamps.clear()
                self.send_json(200, {"stamps": out})
                return
            super().do_GET()

    return type("BoundHandler", (Stamped,), {"fake": fake})


def _responder(request: dict) -> Reply:
    """Echo, or run one tool when the prompt asks for `tool:` (the startup benchmark's turn)."""
    last = request["messages"][-1]
    content = last.get("content")
    text = content if isinstance(content, str) else json.dumps(content)
    if last.get("role") == "user" and "tool:" in text:
        return Reply(tool_calls=[("list_dir", {"path": "."})])
    return Reply(text="done: ok")


def main() -> None:
    fake_openai._make_handler = _make_handler  # type: ignore[assignment]
    window = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
    with FakeOpenAI(window=window, responder=_responder) as server:
        print(server.port, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
