"""The loop's own time per turn, apart from the provider call, at 10, 500 and 1 500 messages.

Run: .venv/bin/python benchmarks/turn_overhead.py [--turns 200]
Targets (issue 4): the loop's own time ≤ 10 ms median per turn, no more than 2× growth from 10 to
1 500 messages. The provider call through litellm is reported beside it (not targeted).
Each size is measured twice: first with the lazy counter's heuristic (a session before tiktoken
has loaded), then with exact counts — the TUI loads tiktoken after the first reply, and what the
loop does per turn differs (the calibration is kept only in tiktoken's units), so the second set
is the state most turns run in.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tui.base.messages import ToolCall, assistant, tool_result, user  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.compose.factory import build_services  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.compose.rule_words import SHIPPED_WORDS  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.config import load_config  # noqa: E402 - imported after the sys.path set-up above
from testkit.fake_openai import FakeOpenAI, Reply  # noqa: E402 - imported after the sys.path set-up above


def history(n: int) -> list:
    out = []
    i = 0
    while len(out) < n:
        i += 1
        call = ToolCall(f"call_{i}", "read_file", f'{{"path": "src/m{i}.py"}}')
        out += [
            user(f"please look at module {i} and tell me what it does"),
            assistant(None, (call,)),
            tool_result(call, f"1\timport os\n2\tdef f{i}():\n3\t    return {i}\n"),
            assistant(f"Module {i} defines f{i}, which returns {i}."),
        ]
    cut = out[:n]
    if cut[-1].tool_calls:  # never end on a call without its result
        cut.append(out[n])
    return cut


async def measure(size: int, turns: int, server: FakeOpenAI, tmp: Path, exact: bool) -> tuple[float, float]:
    cfg = load_config(
        overrides={
            "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": 2_000_000},
            "store": {"db": str(tmp / f"bench-{size}{'-exact' if exact else ''}.db")},
        },
        env={},
        rule_words=SHIPPED_WORDS,
    ).config
    services = await build_services(cfg, workspace=tmp)
    session = await services.new_session()
    session.history.extend(history(size))
    if exact:
        session.meter.counter.wait_exact()  # as the TUI after its first reply
    provider_time = 0.0
    original = session.provider.stream

    async def timed_stream(*args, **kwargs):
        nonlocal provider_time
        start = time.perf_counter()
        try:
            async for chunk in original(*args, **kwargs):
                provider_time += time.perf_counter() - start
                yield chunk
                start = time.perf_counter()
        finally:
            provider_time += time.perf_counter() - start

    session.provider.stream = timed_stream  # type: ignore[method-assign]  # times the provider call apart
    own, calls = [], []
    for k in range(turns + 1):
        server.enqueue(Reply(text=f"answer {k}"))
        provider_time = 0.0
        start = time.perf_counter()
        async for _ in session.run_turn(f"question {k}"):
            pass
        total = time.perf_counter() - start
        if k:  # the first turn warms litellm's imports and the tokenizer
            own.append(total - provider_time)
            calls.append(provider_time)
    await services.close()
    return statistics.median(own), statistics.median(calls)


SERVER = """
import sys, time
from testkit.fake_openai import FakeOpenAI
server = FakeOpenAI(window=2_000_000).start()
print(server.base_url, flush=True)
sys.stdin.read()
"""


class ServerProcess:
    """The instant server in its own process: in a thread of this one, its per-request work
    (parsing and counting 1 500 messages) would compete for the GIL with the loop being timed."""

    def __init__(self) -> None:
        import subprocess

        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        self.base_url = self.proc.stdout.readline().strip()

    def enqueue(self, *_replies: object) -> None:
        """The default responder answers every request instantly."""

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


async def main(turns: int) -> None:
    rows = []
    server = ServerProcess()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # The heuristic first: once tiktoken is loaded every lazy counter in the process uses it.
            for exact in (False, True):
                for size in (10, 500, 1500):
                    own, call = await measure(size, turns, server, Path(tmp), exact)  # type: ignore[arg-type]  # measure takes the running server
                    rows.append((size, exact, own, call))
    finally:
        server.close()
    print(f"{'history':>8}  {'row':<36} {'median / turn':>14}  note")
    for size, exact, own, call in rows:
        base = next(r[2] for r in rows if r[1] == exact)
        exactly = (
            ", exact counts" if exact else ""
        )  # the heuristic's rows keep their labels for before_after.py
        print(
            f"{size:>8}  {'loop own time' + exactly:<36} {own * 1e3:>11.2f} ms  "
            f"target ≤ 10 ms; {own / base:.2f}× the 10-message row (target ≤ 2×)"
        )
        print(f"{size:>8}  {'provider call via litellm' + exactly:<36} {call * 1e3:>11.2f} ms  reported")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    asyncio.run(main(parser.parse_args().turns))
