"""The event loop during a model call: worst stall over a whole step, and the provider's overhead.

Run: .venv/bin/python benchmarks/responsiveness.py [--turns 5] [--wire openai|anthropic|both]
Targets (issue 19 items 1-2): worst event-loop stall during a whole step ≤ 20 ms at 3 000
messages; the provider's own overhead (request built → first byte sent) ≤ 30 ms median at 1 500
messages and ≤ 2× growth from 10 to 3 000 messages. Measured on the direct path
(`[provider] transport = "auto"`) and on the litellm path it replaces, in the same run.

A real AgentSession with a history of 10 / 1 500 / 3 000 messages runs one-step turns against
the strict local server (OpenAI-compatible, then Anthropic's Messages API) in its own process (benchmarks/stamp_server.py), which stamps the
monotonic time each request's first byte arrives. "Sent" is the first write to a socket after
`Provider.stream` was called (asyncio's socket transport, which httpx, the OpenAI SDK and aiohttp
all write through); "at the server" adds the server process waking up to read it, which is not
the provider's work but is printed beside it. A ticker task on the loop sleeps 2 ms at a time; a
stall is how late it wakes. The first turn at each size is a warm-up (imports, the tokenizer,
the first full count) and is not reported.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.selector_events
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from startup import Server  # noqa: E402
from turn_overhead import history  # noqa: E402

from agent_tui.compose.factory import build_services  # noqa: E402
from agent_tui.compose.rule_words import SHIPPED_WORDS  # noqa: E402
from agent_tui.config import load_config  # noqa: E402

SIZES = (10, 1_500, 3_000)
PERIOD = 0.002


class FirstWrite:
    """The monotonic time of the first socket write since `arm()`: the request's first byte sent."""

    def __init__(self) -> None:
        self.at: float | None = None
        transport = asyncio.selector_events._SelectorSocketTransport
        original = transport.write
        watch = self

        def write(self: Any, data: Any) -> None:
            if watch.at is None:
                watch.at = time.monotonic()
            original(self, data)

        transport.write = write  # type: ignore[method-assign]

    def arm(self) -> None:
        self.at = None


class Ticker:
    """Sleeps PERIOD on the loop again and again; remembers the worst lateness while armed."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.armed = False
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(PERIOD)
            late = time.perf_counter() - start - PERIOD
            if self.armed:
                self.worst = max(self.worst, late)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass


MODELS = {"openai": "openai/fake-model", "anthropic": "anthropic/claude-sonnet-4-5"}
"""The model each wire format is measured with (`--wire`)."""


async def measure(
    size: int, transport: str, wire: str, turns: int, server: Server, tmp: Path, first_write: FirstWrite
) -> dict[str, list[float]]:
    config = load_config(
        overrides={
            "model": {"name": MODELS[wire], "api_base": server.base, "context_window": 4_000_000},
            "store": {"db": str(tmp / f"bench-{transport}-{size}.db")},
            "provider": {"transport": transport},
        },
        env={},
        rule_words=SHIPPED_WORDS,
    ).config
    services = await build_services(config, workspace=tmp)
    session = await services.new_session()
    session.history.extend(history(size))
    original = session.provider.stream
    called: list[float] = []

    def stamped(*args: Any, **kwargs: Any) -> Any:
        called.append(time.monotonic())
        first_write.arm()
        return original(*args, **kwargs)

    session.provider.stream = stamped  # type: ignore[method-assign]
    ticker = Ticker()
    ticker.start()
    out: dict[str, list[float]] = {"stall": [], "overhead": [], "at_server": []}
    try:
        for k in range(turns + 1):
            server.stamps()
            called.clear()
            ticker.worst, ticker.armed = 0.0, True
            async for _ in session.run_turn(f"question {k}"):
                pass
            ticker.armed = False
            stamps = server.stamps()
            if k == 0:
                continue  # warm-up
            out["stall"].append(ticker.worst)
            assert first_write.at is not None
            out["overhead"].append(first_write.at - called[0])
            out["at_server"].append(stamps[0]["first_mono"] - called[0])
    finally:
        await ticker.stop()
        await services.close()
    return out


async def one_transport(transport: str, wire: str, turns: int, base: str) -> None:
    """Child process: every size on one path, printed as JSON (a fresh process per path, so
    neither path's imports and garbage weigh on the other's loop)."""
    server = Server(base)
    first_write = FirstWrite()
    out = {}
    with tempfile.TemporaryDirectory() as name:
        for size in SIZES:
            out[str(size)] = await measure(size, transport, wire, turns, server, Path(name), first_write)
    print(json.dumps(out))


def main(turns: int, wire: str) -> None:
    server = Server(anthropic=wire == "anthropic")
    results: dict[tuple[str, int], dict[str, list[float]]] = {}
    try:
        for transport in ("auto", "litellm"):
            child = subprocess.run(
                [sys.executable, __file__, "--turns", str(turns), "--wire", wire]
                + ["--child", transport, "--base", server.base],
                capture_output=True,
                text=True,
                check=True,
                # litellm wants a key for Anthropic; the direct path sends a placeholder to an api_base.
                env={**os.environ, "ANTHROPIC_API_KEY": "sk-ant-benchmark"},
            )
            data = json.loads(child.stdout.strip().splitlines()[-1])
            for size in SIZES:
                results[transport, size] = data[str(size)]
    finally:
        server.close()

    def ms(values: list[float], how: str) -> float:
        return (max(values) if how == "max" else statistics.median(values)) * 1e3

    where = "Anthropic Messages" if wire == "anthropic" else "OpenAI chat completions"
    print(f"{turns} one-step turns per row after a warm-up; local {where} server in its own process")
    print(f"{'messages':>8}  {'measure':<34} {'direct':>9} {'litellm':>9} {'ratio':>7}  target")
    for size in SIZES:
        new, old = results["auto", size], results["litellm", size]
        for label, key, how, target in (
            ("worst loop stall in a step (max)", "stall", "max", "≤ 20 ms at 3 000"),
            ("worst loop stall in a step (median)", "stall", "median", ""),
            ("provider overhead, sent (median)", "overhead", "median", "≤ 30 ms at 1 500"),
            ("… first byte at the server (median)", "at_server", "median", ""),
        ):
            a, b = ms(new[key], how), ms(old[key], how)
            print(f"{size:>8}  {label:<34} {a:7.1f}ms {b:7.1f}ms {b / max(a, 1e-9):6.1f}×  {target}")
    for transport, label in (("auto", "direct"), ("litellm", "litellm")):
        small = ms(results[transport, SIZES[0]]["overhead"], "median")
        large = ms(results[transport, SIZES[-1]]["overhead"], "median")
        print(f"overhead growth 10 → 3 000 messages, {label}: {large / small:.2f}× (target ≤ 2×)")
        small = ms(results[transport, SIZES[0]]["at_server"], "median")
        large = ms(results[transport, SIZES[-1]]["at_server"], "median")
        print(f"  … to the first byte at the server, {label}: {large / small:.2f}×")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--wire", choices=("openai", "anthropic", "both"), default="both")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run(one_transport(args.child, args.wire, args.turns, args.base))
    else:
        for wire in ("openai", "anthropic") if args.wire == "both" else (args.wire,):
            main(args.turns, wire)
            print()
