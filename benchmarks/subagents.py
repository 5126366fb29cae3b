"""Sub-agents: what a child costs the parent's window, whether children run in parallel, and how
fast a child starts. In-process, through the factory the CLI uses, against the local server.

Run: .venv/bin/python benchmarks/subagents.py

(a) Parent-window growth for one child that reads four 50 KB pages of a 2 MB log, against the
    parent reading the same four pages itself (baseline); target: the envelope ≤ 1/10 of it.
(b) Wall time of four children each running a 2-second command, against one child (baseline);
    target ≤ 1.5×.
(c) Time from the parent's `task` call to the child's first request at the server, against the
    time from a plain step's start to its request (baseline); target ≤ 50 ms.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_tui.agent import events as ev
from agent_tui.agent.subagents import CHILD_PROMPT
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from testkit.fake_openai import FakeOpenAI, Reply

WINDOW = 200_000
PAGE = 50 * 1024


def is_child(body: dict) -> bool:
    return CHILD_PROMPT[:40] in json.dumps(body["messages"][:1])


def done_steps(body: dict) -> int:
    return sum(1 for m in body["messages"] if m.get("role") == "assistant")


def reads() -> list[tuple[str, dict]]:
    return [("read_file", {"path": "big.log", "offset": 1 + i * 600, "limit": 600}) for i in range(4)]


class Script:
    """Parent and child answers by request content; `mode` picks the scenario."""

    def __init__(self) -> None:
        self.mode = "delegate"
        self.seconds = 2

    def __call__(self, body: dict) -> Reply:
        steps = done_steps(body)
        if is_child(body):
            if self.mode.startswith("sleep"):
                return (
                    Reply(tool_calls=[("bash", {"command": f"sleep {self.seconds}"})])
                    if not steps
                    else Reply(text="slept")
                )
            return (
                Reply(tool_calls=reads())
                if not steps
                else Reply(text="The log is heartbeats; no errors in pages 1-4.")
            )
        if self.mode == "inline":
            return Reply(tool_calls=reads()) if not steps else Reply(text="read")
        if self.mode == "plain":
            return Reply(text="hi")
        if steps:
            return Reply(text="done")
        count = 4 if self.mode == "sleep4" else 1
        brief = "Run the sleep." if self.mode.startswith("sleep") else "Read big.log pages 1-4."
        return Reply(
            tool_calls=[("task", {"description": f"job {i}", "prompt": brief}) for i in range(count)]
        )


async def services_for(server: FakeOpenAI, root: Path) -> Any:
    config = load_config(
        overrides={
            "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": WINDOW},
            "store": {"db": str(root / "bench.db")},
            "sandbox": {"mode": "off"},
            "tools": {"allow": ["bash"]},
        },
        cwd=root,
        env={},
        rule_words=SHIPPED_WORDS,
    ).config
    return await build_services(config, workspace=root)


async def growth(server: FakeOpenAI, script: Script, root: Path, mode: str) -> int:
    """Tokens the parent's request grew by from its first to its second model call."""
    script.mode = mode
    services = await services_for(server, root)
    try:
        session = await services.new_session(yes=True)
        before = len(server.requests)
        async for _ in session.run_turn("survey big.log"):
            pass
        mine = [b for b in server.requests[before:] if not is_child(b)]
        return server.prompt_tokens_of(mine[1]) - server.prompt_tokens_of(mine[0])
    finally:
        await services.close()


async def wall(server: FakeOpenAI, script: Script, root: Path, mode: str) -> float:
    script.mode = mode
    services = await services_for(server, root)
    try:
        session = await services.new_session(yes=True)
        start = time.monotonic()
        async for _ in session.run_turn("sleep"):
            pass
        return time.monotonic() - start
    finally:
        await services.close()


async def start_latency(server: FakeOpenAI, script: Script, root: Path) -> tuple[float, float]:
    """(task call → child's first request, step start → its request), seconds."""
    script.mode = "delegate"
    services = await services_for(server, root)
    try:
        session = await services.new_session(yes=True)
        called = None
        before = len(server.recorded)
        async for event in session.run_turn("delegate"):
            if isinstance(event, ev.ToolCallStarted) and event.call.name == "task" and called is None:
                called = time.monotonic()
        first_child = next(r for r in server.recorded[before:] if r.body is not None and is_child(r.body))
        assert called is not None
        script.mode = "plain"
        stepped = None
        before = len(server.recorded)
        async for event in session.run_turn("plain"):
            if isinstance(event, ev.StepStarted) and stepped is None:
                stepped = time.monotonic()
        assert stepped is not None
        plain = server.recorded[before]
        return first_child.received_at - called, plain.received_at - stepped
    finally:
        await services.close()


async def main(runs: int = 3) -> None:
    script = Script()
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(window=WINDOW, responder=script) as server:
        root = Path(tmp).resolve()
        row = "2026-11-25T21:00:00 INFO worker heartbeat ok " + "x" * 40 + "\n"
        (root / "big.log").write_text(row * ((2 << 20) // len(row)))
        delegated = await growth(server, script, root, "delegate")
        inline = await growth(server, script, root, "inline")
        one = statistics.median([await wall(server, script, root, "sleep1") for _ in range(runs)])
        four = statistics.median([await wall(server, script, root, "sleep4") for _ in range(runs)])
        starts = [await start_latency(server, script, root) for _ in range(runs + 2)]
    start = statistics.median(s for s, _ in starts)
    plain = statistics.median(p for _, p in starts)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {runs} runs")
    print(f"{'measure':<52} {'value':>10} {'baseline':>10} {'ratio':>7}  target")
    print(
        f"{'(a) parent window growth, one child, tokens':<52} {delegated:>10,} {inline:>10,} "
        f"{delegated / max(inline, 1):>7.3f}  ≤ 0.1 × reading it in the parent "
        f"({'met' if delegated <= inline / 10 else 'MISSED'})"
    )
    print(
        f"{'(b) four children × 2 s command, wall s':<52} {four:>10.2f} {one:>10.2f} "
        f"{four / one:>7.2f}  ≤ 1.5 × one child ({'met' if four <= 1.5 * one else 'MISSED'})"
    )
    print(
        f"{'(c) task call → child first request, ms':<52} {start * 1000:>10.1f} {plain * 1000:>10.1f} "
        f"{start / max(plain, 1e-9):>7.2f}  ≤ 50 ms ({'met' if start <= 0.05 else 'MISSED'})"
    )


if __name__ == "__main__":
    asyncio.run(main())
