"""The store's part of a step, 20 steps in a row: a streamed 5.5 MB output stored, then its view.

Run: .venv/bin/python benchmarks/store_steps.py [--steps 20] [--base DIR]

`benchmarks/steps.py` times the whole step (command finished → next request) through the CLI;
on a loaded machine its figures swing by ±50 ms. This times only what the store adds to a step —
`offload` of the output as bash streams it (64 KB pieces) and the `view` the loop sends — in one
process, 50 ms apart (the request and the model's next call), so work one step leaves in the
background (compression, recall indexing) shows up in the steps after it. Each kind of output
(benchmarks/outputs.py) in a fresh store; `--base DIR` runs another agent-tui tree in the same
sitting, interleaved kind by kind.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from outputs import KINDS, make_output

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import asyncio, json, sys, time
from pathlib import Path
from agent_tui.store import open_store

data = Path(sys.argv[1]).read_bytes()

async def main() -> None:
    async with await open_store(Path(sys.argv[2])) as store:
        session = await store.sessions.create(sys.argv[3], "bench")
        out = []
        for _ in range(int(sys.argv[4])):
            async def stream():
                for start in range(0, len(data), 65536):
                    yield data[start : start + 65536]
                    await asyncio.sleep(0)  # a pipe's pieces arrive one loop turn apart
            started = time.perf_counter()
            ref = await store.results.offload(session.id, "bash", None, stream())
            await store.results.view(ref, 4096, 2000)
            out.append(time.perf_counter() - started)
            await asyncio.sleep(0.05)
        print(json.dumps(out))

asyncio.run(main())
"""


def measure(tree: Path, data: Path, tmp: Path, steps: int) -> list[float]:
    db = tmp / f"{time.monotonic_ns()}.db"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(data), str(db), str(tmp), str(steps)],
        env=env,
        cwd=tmp,  # not the checkout: `-c` puts the working folder first on the path
        capture_output=True,
        text=True,
        check=True,
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--base", type=Path)
    args = parser.parse_args()
    window = min(5, args.steps // 2)
    trees = [("this", ROOT)] + ([("base", args.base.resolve())] if args.base else [])
    print(f"load average {os.getloadavg()[0]:.2f} · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{'output':10} {'tree':6} {'steps 1-' + str(window):>12} {'last ' + str(window):>10} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="agent-tui-store-steps-") as name:
        tmp = Path(name)
        for kind in KINDS:
            data = tmp / f"{kind}.txt"
            make_output(kind, data)
            for label, tree in trees:
                figures = measure(tree, data, tmp, args.steps)
                first = statistics.median(figures[:window]) * 1000
                last = statistics.median(figures[-window:]) * 1000
                print(f"{kind:10} {label:6} {first:9.0f} ms {last:7.0f} ms {last / first:6.2f}×", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
