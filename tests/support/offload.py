"""Big tool outputs for the offload tests: log-like lines, and grep's output over them; and what
the whole-output and streamed-output tests both do to an output in flight: a turn run while the
store's compression is held, a `run` killed the moment its request arrives, and reading on by the
ref afterwards."""

from __future__ import annotations

import asyncio
import random
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.cli import flags, run_cli
from tests.support.signals import start_cli


def big_lines(count: int, width: int = 120) -> list[str]:
    """`count` distinct lines of about `width` characters, each containing the word `row`."""
    return [f"row {n:07d} " + (f"payload-{n % 97:02d} " * (width // 12))[: width - 12] for n in range(count)]


def grep_output(lines: list[str], rel: str) -> str:
    """What the grep tool returns when every one of `lines` in `rel` matches."""
    return "\n".join(f"{rel}:{number}:{line}" for number, line in enumerate(lines, start=1))


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll `condition` from a synchronous test until it holds (True) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


async def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll `condition` on the event loop until it holds (True) or `timeout` passes (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def random_output(rng: random.Random) -> str:
    """An output mixing what views must handle: empty, CRLF, multibyte and very long lines."""
    pieces = ["", "x", "ok done", "é€😀 naïve", "\r", "a\r", "  indented", "ERROR: it broke"]
    lines = []
    for _ in range(rng.randrange(1, 400)):
        kind = rng.random()
        if kind < 0.05:
            lines.append(rng.choice("ab€😀") * rng.randrange(100, 3000))
        elif kind < 0.6:
            lines.append(" ".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12))))
        else:
            lines.append(f"line {len(lines)} " + "w" * rng.randrange(0, 90))
    return "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")


async def turn_with_compression_held(
    svc: Any, session: Any, prompt: str, server: FakeOpenAI
) -> list[ev.AgentEvent]:
    """Run one turn of `session` while every compression worker of the store is busy; fails
    unless the request after the tool call reached `server` before the workers were let go (the
    output's view may not wait for its chunks). Returns the turn's events."""
    gate = threading.Event()
    pool = svc.store.results._pool
    blockers = [pool.submit(gate.wait, 300) for _ in range(2)]
    events: list[ev.AgentEvent] = []
    try:

        async def drive() -> None:
            async for event in session.run_turn(prompt):
                events.append(event)

        turn = asyncio.create_task(drive())
        arrived = await wait_until(lambda: len(server.requests) >= 2 or turn.done(), 30)
        gate.set()
        await turn
        assert arrived and len(server.requests) == 2, "the next request waited for compression"
    finally:
        gate.set()
        for blocker in blockers:
            blocker.result()
    return events


def kill_when_the_request_arrives(server: FakeOpenAI, workspace: Path, db: Path, prompt: str) -> str:
    """`run PROMPT` killed (SIGKILL) the moment its second request (the one carrying the first
    tool call's output) reaches `server`; the ref that request names."""
    proc = start_cli(["run", prompt, "--yes", *flags(server, db)], workspace)
    try:
        arrived = wait_for(lambda: len(server.requests) >= 2 or proc.poll() is not None, 60)
        proc.kill()
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert arrived and len(server.requests) == 2, "the request carrying the output never came"
    sent = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
    found = re.search(r"stored whole as ref (r_[0-9a-f]+)", sent)
    assert found is not None, sent
    return found.group(1)


def read_on(server: FakeOpenAI, workspace: Path, db: Path, ref_id: str, offset: int) -> str:
    """`run --continue` whose model reads two lines of `ref_id` from `offset`: the page it got."""
    server.clear_queue()
    server.enqueue(
        Reply(tool_calls=[("read_result", {"ref_id": ref_id, "offset": offset, "limit": 2})]),
        Reply(text="seen"),
    )
    done = run_cli(["run", "read on", "--continue", *flags(server, db)], workspace)
    assert done.returncode == 0, done.stderr
    return [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][-1]["content"]
