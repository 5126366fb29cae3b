"""Tool finished → next request after a big output that was not streamed into the store.

Run: .venv/bin/python benchmarks/big_output.py [--base PATH] [--rounds 5]
(also `benchmarks/store.py step`, which prints the same rows in the store benchmark's table).

Issue 31: a 5 MB grep result (as an MCP result or any tool that returns its text whole) must
not make the next request wait for compression and indexing. A real AgentSession in its own
process runs one turn against the stamp server (benchmarks/stamp_server.py, its own process):
the model calls `grep` over a 5.5 MB log (every line matches: a 5.6 MB output, non-paged) or
`read_file` on it (one 50 KB page, the paged case). "Tool finished" is the monotonic time the
tool's own run returned; "next request" is the server's stamp of that request's first byte
(CLOCK_MONOTONIC is the machine's, comparable across processes). The process's CPU time over the
same span is printed beside it.

`--base PATH` runs the same child against another checkout (e.g. `git worktree add --detach
/tmp/base main`), interleaved round by round, and prints the ratio this tree / base.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from startup import Server  # noqa: E402 - benchmarks/ on the path first

SCENARIOS = {"big-grep": "grep, 5.6 MB output", "big-read": "read_file of 5.5 MB, one 50 KB page"}

CHILD = r"""
import asyncio, json, os, sys, time
from pathlib import Path
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.compose.factory import build_services

base, work, prompt, turns, db = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]

async def main():
    cfg = load_config(overrides={
        "model": {"name": "openai/fake-model", "api_base": base, "context_window": 4_000_000},
        "store": {"db": str(work / db)},
    }, cwd=work, env={}, rule_words=SHIPPED_WORDS).config
    services = await build_services(cfg, workspace=work)
    out = []
    try:
        for turn in range(turns + 1):  # the first turn warms imports and the provider
            session = await services.new_session()
            registry = session.runner.registry
            run, finished = registry.run, []

            async def timed(*args, _run=run, _finished=finished, **kwargs):
                result = await _run(*args, **kwargs)
                _finished.append((time.monotonic(), time.process_time()))
                return result

            registry.run = timed
            async for event in session.run_turn(f"{prompt}: look at big.log"):
                if type(event).__name__ == "StepStarted" and finished and len(finished) == 1:
                    finished.append((time.monotonic(), time.process_time()))
            if turn:
                out.append({"finished": finished[0][0], "cpu": finished[1][1] - finished[0][1]})
            await services.store.results.wait_indexed()  # the next turn starts on a quiet store
    finally:
        await services.close()
    print(json.dumps(out))

asyncio.run(main())
"""


def big_log(path: Path, size: int = 5_500_000) -> None:
    line = 0
    with path.open("w") as out:
        while out.tell() < size:
            line += 1
            out.write(
                f"{line:08d} INFO worker-{line % 16} request handled for /api/v1/items/{line} took {line % 997}ms\n"
            )


def child(tree: Path, server: Server, work: Path, prompt: str, turns: int) -> list[tuple[float, float]]:
    """(tool finished → next request ms, CPU ms from tool finished to the step's start) per turn."""
    env = {**os.environ, "PYTHONPATH": str(tree), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, server.base, str(work), prompt, str(turns), f"{tree.name}-{prompt}.db"],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"the run under {tree} failed:\n{done.stderr[-3000:]}")
    runs = json.loads(done.stdout.splitlines()[-1])
    arrivals = sorted(s["first_mono"] for s in server.stamps())
    # The request after the tool is the first to arrive once the tool had finished.
    sent = [min(at for at in arrivals if at > r["finished"]) for r in runs]
    return [((at - r["finished"]) * 1000, r["cpu"] * 1000) for r, at in zip(runs, sent, strict=True)]


def measure(
    trees: dict[str, Path], rounds: int, turns: int
) -> dict[tuple[str, str], list[tuple[float, float]]]:
    server = Server()
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="agent-tui-big-") as tmp:
            work = Path(tmp)
            big_log(work / "big.log")
            for round_ in range(rounds):
                for prompt in SCENARIOS:
                    # Alternate who goes first: the one after a big write meets its writeback.
                    order = list(trees.items())[:: -1 if round_ % 2 else 1]
                    for name, tree in order:
                        server.stamps()  # forget anything earlier
                        figures.setdefault((prompt, name), []).extend(
                            child(tree, server, work, prompt, turns)
                        )
    finally:
        server.close()
    return figures


def rows(
    figures: dict[tuple[str, str], list[tuple[float, float]]], base: bool
) -> list[tuple[str, float, float, float | None, float | None, str]]:
    """Rows in benchmarks/store.py's table shape: (case, wall, cpu, base wall, base cpu, kind)."""
    out = []
    for prompt, label in SCENARIOS.items():
        mine = figures[(prompt, "this")]
        wall, cpu = statistics.median(w for w, _ in mine), statistics.median(c for _, c in mine)
        if base:
            theirs = figures[(prompt, "base")]
            out.append(
                (
                    f"tool finished → next request ({label})",
                    wall,
                    cpu,
                    statistics.median(w for w, _ in theirs),
                    statistics.median(c for _, c in theirs),
                    "base",
                )
            )
        else:
            out.append((f"tool finished → next request ({label})", wall, cpu, None, None, "-"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, help="another checkout to compare with (ratio this / base)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--turns", type=int, default=2, help="measured turns per process and round")
    args = parser.parse_args()
    trees = {"this": ROOT, **({"base": args.base.resolve()} if args.base else {})}
    figures = measure(trees, args.rounds, args.turns)
    from store import print_table

    print_table(rows(figures, args.base is not None))
    print(f"n = {args.rounds * args.turns} per row (medians), trees interleaved round by round")


if __name__ == "__main__":
    main()
