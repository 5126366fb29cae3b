"""Is step 20 as fast as step 1? "Tool finished → next request" over 20-step sessions.

Run: .venv/bin/python benchmarks/steps.py [--steps 20] [--kinds numbers,logs,repeated]

Each kind of output is one a user's commands really print, ~5.5 MB: `numbers` is `seq 1 800000`,
`logs` are lines with timestamps, levels, request ids and durations (they compress and index
like real logs, not like one repeated token), `repeated` is one line over and over (the cheap
case the older benchmarks measured). For each kind, two sessions in a fresh home:
- in one process: one `agent-tui run` whose turn calls bash `--steps` times;
- across processes: `--steps` runs of `agent-tui run --continue`, one tool call each (what a
  script driving agent-tui does, and where work left by one process lands on the next).
The command stamps the moment it finished; the scripted server (benchmarks/peer_server.py) stamps
each request's arrival and how many tool results it carries, so step k's figure is the arrival of
the request with the k-th result minus the k-th stamp. Printed: the median of steps 1–5 and of the
last five, and their ratio (the target is ≤ 1.2). Load average is printed with the table:
the figures are CPU-sensitive.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from outputs import make_output
from peers import AGENT, PYTHON, ROOT, agent_tui

STAMPS = "tool_done.stamps"
COMMAND = f"cat out.txt; date +%s.%N >> {STAMPS}"


class Server:
    def __init__(self, steps: int) -> None:
        self.proc = subprocess.Popen(
            [PYTHON, str(ROOT / "benchmarks" / "peer_server.py"), COMMAND, str(steps)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def stamps(self) -> list[dict]:
        import json
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stamps") as answer:
            return list(json.loads(answer.read())["stamps"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")


def _done_stamps(work: Path) -> list[float]:
    return [float(x) for x in (work / STAMPS).read_text().split()]


def one_process(kind: str, steps: int, tmp: Path, data: Path, tree: Path) -> list[float]:
    server = Server(steps)
    try:
        work = tmp / f"work-{kind}-one"
        work.mkdir()
        (work / "out.txt").symlink_to(data)
        agent = agent_tui(tmp / f"one-{kind}", server.port, tree)
        _run([*agent.run_cmd, "run the benchmark command"], agent.env, work)
        after: dict[int, float] = {}
        for stamp in server.stamps():  # the first request carrying k results is step k's
            after.setdefault(stamp["results"], stamp["at"])
        done = _done_stamps(work)
        return [after[k + 1] - done[k] for k in range(min(steps, len(done))) if k + 1 in after]
    finally:
        server.close()


def across_processes(kind: str, steps: int, tmp: Path, data: Path, tree: Path) -> list[float]:
    server = Server(1)
    try:
        work = tmp / f"work-{kind}-continue"
        work.mkdir()
        (work / "out.txt").symlink_to(data)
        agent = agent_tui(tmp / f"continue-{kind}", server.port, tree)
        out: list[float] = []
        for step in range(steps):
            server.stamps()
            cmd = [AGENT, "run", "--yes", *(["--continue"] if step else []), "run the benchmark command"]
            _run(cmd, agent.env, work)
            after = [s["at"] for s in server.stamps() if s["results"] >= 1]
            out.append(after[0] - _done_stamps(work)[step])
        return out
    finally:
        server.close()


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:6.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--kinds", default="numbers,logs,repeated")
    parser.add_argument("--modes", default="one,continue")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the agent-tui source tree to run")
    parser.add_argument(
        "--base", type=Path, help="also run this tree (e.g. an export of main), interleaved: before/after"
    )
    args = parser.parse_args()
    window = min(5, args.steps // 2)
    trees = [("", args.tree)] + ([("base ", args.base)] if args.base else [])
    print(f"agent-tui from {args.tree}" + (f"; base from {args.base}" if args.base else ""))
    print(f"load average {os.getloadavg()[0]:.2f} · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(
        f"{'output':10} {'session':27} {'steps 1-' + str(window):>12} {'last ' + str(window):>12} {'ratio':>7}"
    )
    with tempfile.TemporaryDirectory(prefix="agent-tui-steps-") as name:
        tmp = Path(name)
        for sub in ("this", "base"):
            (tmp / sub).mkdir()
        for kind in args.kinds.split(","):
            data = tmp / f"{kind}.txt"
            make_output(kind, data)
            for mode in args.modes.split(","):
                measure = one_process if mode == "one" else across_processes
                for prefix, tree in trees:
                    label = prefix + (
                        f"{args.steps} steps in 1 run" if mode == "one" else f"{args.steps} × run --continue"
                    )
                    figures = measure(kind, args.steps, tmp / f"{prefix.strip() or 'this'}", data, tree)
                    first, last = figures[:window], figures[-window:]
                    ratio = statistics.median(last) / statistics.median(first)
                    print(f"{kind:10} {label:27} {_ms(first):>12} {_ms(last):>12} {ratio:6.2f}×", flush=True)
                    if os.environ.get("STEPS_VERBOSE"):
                        print("   ", " ".join(f"{v * 1000:.0f}" for v in figures))
    print(f"load average {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
