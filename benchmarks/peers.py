"""agent-tui beside Claude Code and Codex: start-up and the step after a big tool output.

Run: .venv/bin/python benchmarks/peers.py [--repeat 7] [--only headless|tui] [--base DIR] [--markdown]
(`--markdown` prints the table as the README's performance section shows it; `--only` runs one
half of the figures; `--base DIR` also runs the agent-tui tree at DIR, e.g. a
`git worktree add --detach /tmp/base main`, interleaved with this one, and adds a "÷ base" column:
the before/after of a change in one sitting.)
Peers: `npm i -g @anthropic-ai/claude-code @openai/codex` (both take a local base URL). A peer
that is not installed is reported as missing and its rows stay empty; agent-tui is always measured.

All three agents talk to one local scripted model (benchmarks/peer_server.py), each in its own wire
format, with a fresh home each; runs are interleaved agent by agent so a change in the machine's
load falls on all three alike. The one-tool turn asks for `cat big.txt` (5.5 MB: `seq 1 800000`
by default, `--output logs|repeated` for the others, benchmarks/outputs.py) and the command
stamps the moment it finished into a file, so "tool finished → next request" is measured the same
way for everyone: the server's arrival stamp of the request carrying the tool result minus the
command's own stamp (both time.time() on this machine).

"Reply → command started" is the command's first act (it stamps the time before `cat`) minus the
server's stamp of when it finished sending the reply that named the tool call. "TUI reply →
drawn at turn N" drives a chat of N turns in each agent's TUI (benchmarks/peer_turns.py,
`--chat-turns`, 0 skips it): the reply's token on screen minus the answer's stamp.

The baseline named by issue 31 is the peers' medians measured in the same run: each row prints
agent-tui's median over Claude Code's and over the best peer's.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from leftovers import end_leftovers
from outputs import KINDS, make_output
from peer_turns import chat_turns

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
AGENT = str(Path(PYTHON).parent / "agent-tui")
BIG_BYTES = 5_500_000
COMMAND = "date +%s.%N > tool_start.stamp; cat big.txt; date +%s.%N > tool_done.stamp"


class Server:
    """benchmarks/peer_server.py in its own process (its parsing stays off the agents' clocks)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [PYTHON, str(ROOT / "benchmarks" / "peer_server.py"), COMMAND],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def stamps(self) -> list[dict]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stamps") as answer:
            return list(json.loads(answer.read())["stamps"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


@dataclass
class Agent:
    """One agent under test: how to run it headless, and where it keeps its home."""

    name: str
    version_cmd: list[str]
    run_cmd: list[str]
    env: dict[str, str]
    tui_cmd: list[str] = field(default_factory=list)
    ready: str = ""
    """A regex that matches the screen once the prompt is drawn and takes typing."""
    figures: dict[str, list[float]] = field(default_factory=dict)
    peer: bool = True
    """False for agent-tui's own trees (this one and `--base`): they are not peers."""

    def add(self, key: str, value: float) -> None:
        self.figures.setdefault(key, []).append(value)


def _base_env() -> dict[str, str]:
    drop = ("_API_KEY", "_BASE_URL")
    return {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(drop) and k not in {"PYTHONDONTWRITEBYTECODE", "TMUX", "CODEX_HOME"}
    }


def agent_tui(tmp: Path, port: int, tree: Path = ROOT, name: str = "agent-tui") -> Agent:
    """agent-tui from the source tree `tree` (the venv's entry point, that tree first on the path)."""
    home = tmp / f"home-{name.replace(' ', '-')}"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        f'[model]\nname = "openai/bench-model"\napi_base = "http://127.0.0.1:{port}/v1"\n'
        "context_window = 128000\n"
    )
    env = {
        **_base_env(),
        "AGENT_TUI_HOME": str(home),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(tree),
    }
    run = [AGENT, "run", "--yes"]
    return Agent(name, [AGENT, "--version"], run, env, [AGENT], "Ask anything", peer=False)


def claude_code(tmp: Path, port: int) -> Agent | None:
    exe = shutil.which("claude")
    if exe is None:
        return None
    home = tmp / "home-claude"
    home.mkdir()
    # A fresh home as a returning user has it: onboarding done, the key and the folder accepted.
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "customApiKeyResponses": {"approved": ["sk-bench"], "rejected": []},
                "projects": {str(tmp / "work"): {"hasTrustDialogAccepted": True}},
            }
        )
    )
    env = {
        **_base_env(),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-bench",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    run = [exe, "-p", "--allowedTools", "Bash", "--output-format", "json"]
    return Agent("Claude Code", [exe, "--version"], run, env, [exe], r"\? for shortcuts")


def codex(tmp: Path, port: int) -> Agent | None:
    exe = shutil.which("codex")
    if exe is None:
        return None
    home = tmp / "home-codex"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "gpt-5.1-codex"\nmodel_provider = "bench"\n[model_providers.bench]\n'
        f'name = "bench"\nbase_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\n'
        'env_key = "BENCH_KEY"\n'
        f'[projects."{tmp / "work"}"]\ntrust_level = "trusted"\n'
    )
    env = {**_base_env(), "CODEX_HOME": str(home), "HOME": str(home), "BENCH_KEY": "bench"}
    run = [exe, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
    return Agent("Codex", [exe, "--version"], run, env, [exe], "Ask Codex")


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float, int]:
    """(start, end, CPU seconds of the process tree, exit code) of one run."""
    before = os.times()
    start = time.time()
    done = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=180)
    end = time.time()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return start, end, cpu, done.returncode


def one_round(agent: Agent, server: Server, work: Path) -> None:
    start, end, _, _ = timed(agent.version_cmd, agent.env, work)
    agent.add("version", end - start)

    server.stamps()
    start, end, cpu, code = timed([*agent.run_cmd, "say hi"], agent.env, work)
    stamps = server.stamps()
    if code == 0 and stamps:
        agent.add("first", stamps[0]["at"] - start)

    (work / "tool_done.stamp").unlink(missing_ok=True)
    (work / "tool_start.stamp").unlink(missing_ok=True)
    start, end, cpu, code = timed([*agent.run_cmd, "run the benchmark command"], agent.env, work)
    stamps = server.stamps()
    after_tool = [s for s in stamps if s["tool_result"]]
    calls = [s for s in stamps if s.get("calls_tool") and s.get("replied")]
    stamp_file = work / "tool_done.stamp"
    if code != 0 or not after_tool or not stamp_file.exists():
        print(f"  {agent.name}: the one-tool turn did not complete (exit {code})", file=sys.stderr)
        return
    if calls:
        agent.add("command", float((work / "tool_start.stamp").read_text().strip()) - calls[0]["replied"])
    agent.add("turn", end - start)
    agent.add("cpu", cpu)
    agent.add("next", after_tool[0]["at"] - float(stamp_file.read_text().strip()))
    agent.add("next_kb", after_tool[0]["bytes"] / 1000)


def _tree_pids(root: int) -> list[int]:
    """`root` and its live descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(child for child, ppid in parents.items() if ppid == pid)
    return found


def _tree_pss_mb(root: int) -> float:
    """Proportional set size of `root` and its descendants, in MB (shared pages split between
    the processes that share them, so a tree's memory is not counted twice)."""
    total_kb = 0
    for pid in _tree_pids(root):
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
        except OSError:
            continue
    return total_kb / 1000


def _tree_cpu(root: int) -> float:
    """CPU seconds of `root` and its live descendants (reaped children count in their parent)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid = int(fields[1])
        cpu = sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
        stats[int(entry.name)] = (ppid, cpu)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0.0))[1]
        todo.extend(child for child, (ppid, _) in stats.items() if ppid == pid)
    return total


_ROUNDS = itertools.count()


def tui_round(agent: Agent, work: Path, window: float = 5.0) -> None:
    """Launch → prompt drawn (and for agent-tui → meter's percent), CPU in the first `window`
    seconds, in tmux."""
    # A socket of its own per round: a new server on the last round's socket can meet the old
    # one still shutting down ("server exited unexpectedly").
    socket = f"peers-{os.getpid()}-{next(_ROUNDS)}"
    env_args = [f"{k}={v}" for k, v in agent.env.items()]
    start = time.time()
    subprocess.run(
        [
            "tmux",
            "-L",
            socket,
            "new-session",
            "-d",
            "-s",
            "bench",
            "-x",
            "120",
            "-y",
            "36",
            "-c",
            str(work),
            "env",
            "-i",
            *env_args,
            *agent.tui_cmd,
        ],
        check=True,
    )
    try:
        pid = int(
            subprocess.run(
                ["tmux", "-L", socket, "display", "-p", "-t", "bench", "#{pane_pid}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        drawn = meter = None
        while time.time() - start < window:
            screen = subprocess.run(
                ["tmux", "-L", socket, "capture-pane", "-p", "-t", "bench"],
                capture_output=True,
                text=True,
            ).stdout
            now = time.time()
            if drawn is None and re.search(agent.ready, screen):
                drawn = now - start
            if not agent.peer and meter is None and re.search(r"ctx.*\d+%", screen):
                meter = now - start
            time.sleep(0.01)
        cpu = _tree_cpu(pid)
        pss = _tree_pss_mb(pid)
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
        end_leftovers(agent.env)  # Codex's `codex app-server` outlives its pane
    if drawn is not None:
        agent.add("tui_prompt", drawn)
    if meter is not None:
        agent.add("tui_meter", meter)
    agent.add("tui_cpu", cpu)
    agent.add("tui_pss", pss)


ROWS = [
    ("`--version`", "version", "s"),
    ("headless launch → first request", "first", "s"),
    ("headless one-tool turn (5.5 MB), launch → exit", "turn", "s"),
    ("headless one-tool turn CPU (user + sys)", "cpu", "s"),
    ("reply naming the tool → command started", "command", "s"),
    ("tool finished → next request", "next", "s"),
    ("next request's size after the 5.5 MB output", "next_kb", "KB"),
    ("TUI launch → prompt drawn (tmux 120×36)", "tui_prompt", "s"),
    ("TUI launch → meter shows a percent", "tui_meter", "s"),
    ("CPU seconds in the first 5 s of the TUI", "tui_cpu", "s"),
    ("PSS of the TUI's process tree at launch + 5 s", "tui_pss", "MB"),
    ("TUI reply → drawn at turn 2 (tmux)", "tui_turn_early", "s"),
    ("TUI reply → drawn at turn 30 (tmux)", "tui_turn", "s"),
]


def chat_round(agent: Agent, server: Server, work: Path, turns: int) -> None:
    """Reply → drawn at turn 2 and at the last turn of a fresh chat in the agent's TUI."""
    try:
        drawn = chat_turns(agent.tui_cmd, agent.env, agent.ready, server, work, turns)
    finally:
        end_leftovers(agent.env)
    if turns in drawn:
        agent.add("tui_turn", drawn[turns])
    else:
        print(f"  {agent.name}: the chat stopped after turn {max(drawn, default=0)}", file=sys.stderr)
    if 2 in drawn:
        agent.add("tui_turn_early", drawn[2])


def _cell(values: list[float], unit: str) -> str:
    if not values:
        return "–"
    med = statistics.median(values)
    if unit == "KB":
        return f"{med:.1f} KB"
    if unit == "MB":
        return f"{med:.0f} MB"
    return f"{med * 1000:.0f} ms [{min(values) * 1000:.0f}–{max(values) * 1000:.0f}]"


def _median(agent: Agent | None, key: str) -> float | None:
    values = agent.figures.get(key) if agent is not None else None
    return statistics.median(values) if values else None


def _ratio(mine: float | None, other: float | None) -> str:
    return f"{mine / other:.2f}×" if mine is not None and other else "–"


def ratios(agents: list[Agent], key: str) -> dict[str, str]:
    """agent-tui's median over the base tree's (when run), Claude Code's and the best peer's."""
    ours = _median(agents[0], key)
    base = next((a for a in agents[1:] if not a.peer), None)
    cc = next((a for a in agents if a.name == "Claude Code"), None)
    peers = [m for a in agents if a.peer and (m := _median(a, key)) is not None]
    found = {"÷ CC": _ratio(ours, _median(cc, key)), "÷ best": _ratio(ours, min(peers, default=None))}
    if base is not None:
        found = {"÷ base": _ratio(ours, _median(base, key)), **found}
    return found


def report(agents: list[Agent], missing: list[str], repeat: int, rows: list[tuple[str, str, str]]) -> None:
    print(
        f"medians [min–max] of {repeat} interleaved runs · load {os.getloadavg()[0]:.1f} · "
        f"{time.strftime('%Y-%m-%d')}"
    )
    if missing:
        print(f"peers missing (npm i -g {' '.join(missing)}): their columns are empty")
    names = [a.name for a in agents]
    columns = list(ratios(agents, rows[0][1]))
    print(f"{'figure':48}" + "".join(f"{n:>24}" for n in names) + "".join(f"{c:>8}" for c in columns))
    for label, key, unit in rows:
        line = f"{label:48}" + "".join(f"{_cell(a.figures.get(key, []), unit):>24}" for a in agents)
        print(line + "".join(f"{r:>8}" for r in ratios(agents, key).values()))


def markdown(agents: list[Agent], repeat: int, rows: list[tuple[str, str, str]]) -> None:
    """The same figures as a Markdown table, with the load and the date (docs/performance.md)."""
    agents = [agents[0], *(a for a in agents if a.peer)]
    load = os.getloadavg()[0]
    print(f"Medians of {repeat} interleaved runs, {time.strftime('%Y-%m-%d')}, load {load:.1f}:\n")
    names = [a.name for a in agents]
    print("| figure | " + " | ".join(names) + " | ÷ Claude Code | ÷ best peer |")
    print("|---|" + "---:|" * (len(names) + 2))
    ours = agents[0]
    for label, key, unit in rows:
        cells = []
        for agent in agents:
            values = agent.figures.get(key, [])
            if not values:
                cells.append("–")
            elif unit == "KB":
                cells.append(f"{statistics.median(values):.1f} KB")
            elif unit == "MB":
                cells.append(f"{statistics.median(values):.0f} MB")
            else:
                cells.append(f"{statistics.median(values) * 1000:,.0f} ms".replace(",", " "))
        mine = ours.figures.get(key)
        ratios = []
        for pool in ([a for a in agents[1:] if a.name == "Claude Code"], agents[1:]):
            medians = [statistics.median(a.figures[key]) for a in pool if a.figures.get(key)]
            ratios.append(f"{statistics.median(mine) / min(medians):.2f}×" if mine and medians else "–")
        print(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", choices=("headless", "tui"), help="run only these figures")
    parser.add_argument("--no-tui", action="store_true", help="skip the tmux rows (= --only headless)")
    parser.add_argument(
        "--window",
        type=float,
        default=5.0,
        help="seconds of the TUI's CPU row (on a loaded machine 5 s may end before start-up does)",
    )
    parser.add_argument("--base", type=Path, help="also run the agent-tui tree in this folder")
    parser.add_argument(
        "--peers", default="claude,codex", help="comma-separated peers to run (claude, codex; none)"
    )
    parser.add_argument("--markdown", action="store_true", help="also print the README's table")
    parser.add_argument(
        "--chat-turns", type=int, default=30, help="turns of the TUI chat row (0: leave the row out)"
    )
    parser.add_argument(
        "--output",
        choices=KINDS,
        default="numbers",
        help="what the command prints (numbers: `seq 1 800000`; logs; repeated: the old hex line)",
    )
    args = parser.parse_args()
    headless = args.only != "tui"
    tui = args.only != "headless" and not args.no_tui and shutil.which("tmux") is not None
    cpu_label = f"CPU seconds in the first {args.window:g} s of the TUI"
    turn_label = f"TUI reply → drawn at turn {args.chat_turns} (tmux)"
    relabel = {"tui_cpu": cpu_label, "tui_turn": turn_label}
    all_rows = [(relabel.get(row[1], row[0]), *row[1:]) for row in ROWS]
    rows = [
        row
        for row in all_rows
        if (row[1].startswith("tui_") and tui) or (not row[1].startswith("tui_") and headless)
        if args.chat_turns >= 2 or not row[1].startswith("tui_turn")
    ]
    trees = [ROOT] if args.base is None else [ROOT, args.base.resolve()]
    for tree in trees:
        subprocess.run(
            [PYTHON, "-m", "compileall", "-q", str(tree / "agent_tui")], check=True, capture_output=True
        )
    server = Server()
    try:
        # A peer killed with its tmux server may still be writing into its home as it dies.
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as name:
            tmp = Path(name)
            work = tmp / "work"
            work.mkdir()
            make_output(args.output, work / "big.txt")
            agents: list[Agent] = [agent_tui(tmp, server.port)]
            if args.base is not None:
                agents.append(agent_tui(tmp, server.port, args.base.resolve(), "agent-tui base"))
            missing = []
            wanted = set(args.peers.split(","))
            for make, package in ((claude_code, "@anthropic-ai/claude-code"), (codex, "@openai/codex")):
                if make.__name__.split("_")[0] not in wanted:
                    continue
                peer = make(tmp, server.port)
                if peer is None:
                    missing.append(package)
                else:
                    agents.append(peer)
            for _ in range(args.repeat):
                for agent in agents:
                    if headless:
                        one_round(agent, server, work)
                    if tui:
                        tui_round(agent, work, args.window)
                    if tui and args.chat_turns >= 2:
                        chat_round(agent, server, work, args.chat_turns)
            report(agents, missing, args.repeat, rows)
            if args.markdown:
                print()
                markdown(agents, args.repeat, rows)
    finally:
        server.close()


if __name__ == "__main__":
    main()
