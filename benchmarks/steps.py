"""Is step 20 as fast as step 1? "Tool finished → next request" over 20-step sessions.

Run: .venv/bin/python benchmarks/steps.py [--steps 20] [--repeat 3] [--kinds numbers,logs,repeated]

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
last five, and their ratio (the target is ≤ 1.2).

On a loaded machine the wall times are mostly other processes' turns on the cores, and load that
changes during a session falls on its last steps and not its first. So the sessions are repeated
(`--repeat`, interleaved kind by kind and mode by mode, each figure the median over the repeats
of that step), and beside the wall time each step reports the agent's own CPU time (its threads'
time on a core, /proc/PID/task/*/schedstat, read by the server as each request arrives: request
k-1 → request k, so the whole step, with the output's reading and storing), which other
processes barely move.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from outputs import make_output
from peers import AGENT, PYTHON, ROOT, agent_tui

STAMPS = "tool_done.stamps"
COMMAND = f"cat out.txt; date +%s.%N >> {STAMPS}"


class Server:
    def __init__(self, steps: int, pid_file: Path) -> None:
        self.pid_file = pid_file
        self.proc = subprocess.Popen(
            [PYTHON, str(ROOT / "benchmarks" / "peer_server.py"), COMMAND, str(steps)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "BENCH_CPU_PID_FILE": str(pid_file)},
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


def _run(cmd: list[str], env: dict[str, str], cwd: Path, pid_file: Path) -> None:
    """Run the agent to its end, its process id in `pid_file` for the server's CPU readings."""
    with subprocess.Popen(
        cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        pid_file.write_text(str(proc.pid))  # long before its first request: Python is still starting
        _, err = proc.communicate(timeout=600)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.decode()[-2000:]}")


@dataclass
class Steps:
    """One session's figures, by step: wall seconds tool finished → next request, and the
    agent's CPU seconds over the step (None where a reading is missing)."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float | None] = field(default_factory=list)


def _cpu_between(before: dict | None, after: dict | None) -> float | None:
    if before is None or after is None or before.get("cpu") is None or after.get("cpu") is None:
        return None
    return float(after["cpu"] - before["cpu"])


def _done_stamps(work: Path) -> list[float]:
    return [float(x) for x in (work / STAMPS).read_text().split()]


def one_process(kind: str, steps: int, tmp: Path, data: Path, tree: Path) -> Steps:
    tmp.mkdir(parents=True)
    server = Server(steps, tmp / "agent.pid")
    try:
        work = tmp / f"work-{kind}-one"
        work.mkdir()
        (work / "out.txt").symlink_to(data)
        agent = agent_tui(tmp / f"one-{kind}", server.port, tree)
        _run([*agent.run_cmd, "run the benchmark command"], agent.env, work, server.pid_file)
        after: dict[int, dict] = {}
        for stamp in server.stamps():  # the first request carrying k results is step k's
            after.setdefault(stamp["results"], stamp)
        done = _done_stamps(work)
        found = Steps()
        for k in range(min(steps, len(done))):
            if k + 1 in after:
                found.wall.append(after[k + 1]["at"] - done[k])
                found.cpu.append(_cpu_between(after.get(k), after[k + 1]))
        return found
    finally:
        server.close()


def across_processes(kind: str, steps: int, tmp: Path, data: Path, tree: Path) -> Steps:
    tmp.mkdir(parents=True)
    server = Server(1, tmp / "agent.pid")
    try:
        work = tmp / f"work-{kind}-continue"
        work.mkdir()
        (work / "out.txt").symlink_to(data)
        agent = agent_tui(tmp / f"continue-{kind}", server.port, tree)
        found = Steps()
        for step in range(steps):
            server.stamps()
            cmd = [AGENT, "run", "--yes", *(["--continue"] if step else []), "run the benchmark command"]
            _run(cmd, agent.env, work, server.pid_file)
            stamps = server.stamps()
            first = next((s for s in stamps if s["results"] == 0 and s["shell_offered"]), None)
            after = next(s for s in stamps if s["results"] >= 1)
            found.wall.append(after["at"] - _done_stamps(work)[step])
            found.cpu.append(_cpu_between(first, after))
        return found
    finally:
        server.close()


def _per_step(runs: Sequence[Sequence[float | None]]) -> list[float]:
    """Each step's median over the repeated sessions (readings that are missing left out)."""
    steps = min(len(r) for r in runs)
    out = []
    for k in range(steps):
        seen = [r[k] for r in runs if r[k] is not None]
        out.append(statistics.median(seen) if seen else float("nan"))
    return out


def _cells(runs: Sequence[Sequence[float | None]], window: int) -> str:
    figures = _per_step(runs)
    first, last = statistics.median(figures[:window]), statistics.median(figures[-window:])
    return f"{first * 1000:7.0f} ms {last * 1000:7.0f} ms {last / first:6.2f}×"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--kinds", default="numbers,logs,repeated")
    parser.add_argument("--modes", default="one,continue")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the agent-tui source tree to run")
    parser.add_argument(
        "--base", type=Path, help="also run this tree (e.g. an export of main), interleaved: before/after"
    )
    parser.add_argument("--repeat", type=int, default=3, help="sessions of each kind, interleaved")
    args = parser.parse_args()
    window = min(5, args.steps // 2)
    trees = [("", args.tree)] + ([("base ", args.base)] if args.base else [])
    kinds, modes = args.kinds.split(","), args.modes.split(",")
    print(f"agent-tui from {args.tree}" + (f"; base from {args.base}" if args.base else ""))
    print(
        f"load average {os.getloadavg()[0]:.2f} · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f" · each step the median of {args.repeat} sessions"
    )
    found: dict[tuple[str, str, str], list[Steps]] = {}
    with tempfile.TemporaryDirectory(prefix="agent-tui-steps-") as name:
        tmp = Path(name)
        for kind in kinds:
            make_output(kind, tmp / f"{kind}.txt")
        for repeat in range(args.repeat):
            for kind in kinds:
                for mode in modes:
                    measure = one_process if mode == "one" else across_processes
                    for prefix, tree in trees:
                        home = tmp / f"{prefix.strip() or 'this'}-{mode}-{kind}-{repeat}"
                        steps = measure(kind, args.steps, home, tmp / f"{kind}.txt", tree)
                        found.setdefault((kind, mode, prefix), []).append(steps)
                        if os.environ.get("STEPS_VERBOSE"):
                            print(kind, mode, prefix, " ".join(f"{v * 1000:.0f}" for v in steps.wall))
                            print("  cpu", " ".join(f"{(v or 0) * 1000:.0f}" for v in steps.cpu))
    head = f"{'steps 1-' + str(window):>10} {'last ' + str(window):>10} {'ratio':>7}"
    print(f"{'':39}{'tool finished → next request':^31}  {'agent CPU per step':^31}")
    print(f"{'output':10} {'session':27} {head}  {head}")
    for (kind, mode, prefix), sessions in found.items():
        label = prefix + (
            f"{args.steps} steps in 1 run" if mode == "one" else f"{args.steps} × run --continue"
        )
        wall = _cells([s.wall for s in sessions], window)
        cpu = _cells([s.cpu for s in sessions], window)
        print(f"{kind:10} {label:27} {wall}  {cpu}")
    print(f"load average {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
