"""Reply sent → reply on screen, turn after turn, in the real TUI in a real terminal (tmux).

Run: .venv/bin/python benchmarks/tui_tmux_turns.py [--turns 300] [--base DIR]

`tui_step.py` measures the same thing inside the process (Pilot, the instrument's marks) and
says flat; issue 31 saw ~1 ms more per turn in tmux, where the terminal's own drawing counts too.
This drives `agent-tui` in tmux against the local fake server: each turn types `turnN go`, the
server answers with a token naming N and stamps when it answered, and the screen is polled
(every 5 ms) until the token shows. Rough per turn (the polling and tmux add their own
milliseconds), but a growth of 1 ms per turn is 300 ms by turn 300. `--base DIR` runs another
agent-tui tree (a `git worktree add --detach`) after this one, on the same number of turns.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testkit.fake_openai import FakeOpenAI, Reply  # noqa: E402  (the repo root is put on the path first)

AGENT = str(Path(sys.executable).parent / "agent-tui")


def run(tree: Path, turns: int) -> dict[int, float]:
    """Seconds from the server's answer to the token on screen, by turn number."""
    answered: dict[int, float] = {}

    def responder(body: dict) -> Reply:
        last = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        text = last if isinstance(last, str) else " ".join(p.get("text", "") for p in last)
        n = int(text.split("turn")[-1].split()[0])
        answered[n] = time.time()
        return Reply(text=f"Fixed the **total** for zq{n}x.")

    with FakeOpenAI(responder=responder) as server, tempfile.TemporaryDirectory() as name:
        home = Path(name) / "home"
        (home / "config").mkdir(parents=True)
        (home / "config" / "config.toml").write_text(
            f'[model]\nname = "openai/fake-model"\napi_base = "{server.base_url}"\ncontext_window = 128000\n'
        )
        work = Path(name) / "work"
        work.mkdir()
        socket = f"turns-{os.getpid()}-{tree.name}"
        tmux = ["tmux", "-L", socket]
        env = [f"AGENT_TUI_HOME={home}", "LITELLM_LOCAL_MODEL_COST_MAP=True", f"PYTHONPATH={tree}"]
        size = ["-x", "120", "-y", "36", "-c", str(work)]
        subprocess.run([*tmux, "new-session", "-d", "-s", "b", *size, "env", *env, AGENT], check=True)

        def screen() -> str:
            return subprocess.run(
                [*tmux, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True
            ).stdout

        try:
            while "Ask anything" not in screen():
                time.sleep(0.05)
            seen: dict[int, float] = {}
            for n in range(1, turns + 1):
                subprocess.run([*tmux, "send-keys", "-t", "b", "-l", f"turn{n} go"], check=True)
                subprocess.run([*tmux, "send-keys", "-t", "b", "Enter"], check=True)
                deadline = time.time() + 30
                while f"zq{n}x" not in screen():
                    if time.time() > deadline:
                        raise SystemExit(f"turn {n}'s reply never showed")
                    time.sleep(0.005)
                seen[n] = time.time() - answered[n]
            return seen
        finally:
            subprocess.run([*tmux, "kill-server"], capture_output=True)


def _median_ms(seen: dict[int, float], first: int, last: int) -> float:
    return statistics.median(seen[i] for i in range(first, last + 1) if i in seen) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--base", type=Path, help="also run the agent-tui tree in this folder")
    args = parser.parse_args()
    trees = [ROOT] if args.base is None else [ROOT, args.base.resolve()]
    turns = max(args.turns, 40)
    print(f"reply answered → on screen (tmux 120×36), medians · load {os.getloadavg()[0]:.1f}")
    print(f"{'tree':24}{'turns 2-6':>12}{'turns 26-35':>14}{f'last 10 (to {turns})':>20}{'÷ turns 2-6':>14}")
    for tree in trees:
        seen = run(tree, turns)
        early, middle, late = (
            _median_ms(seen, 2, 6),
            _median_ms(seen, 26, 35),
            _median_ms(seen, turns - 9, turns),
        )
        name = "this tree" if tree == ROOT else f"base {tree.name}"
        print(f"{name:24}{early:10.0f} ms{middle:12.0f} ms{late:18.0f} ms{late / early:13.2f}×")


if __name__ == "__main__":
    main()
