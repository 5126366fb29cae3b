"""What checking a folder's trust costs now that the hash covers the project's commands, skills
and agents: `trust.state(folder)` (read once or more at every start, by the config and the
sub-agent definitions) on a folder with only `.agent-tui.toml` (the baseline: what was hashed
before), with a typical `.claude/` (20 commands, 5 skills, 5 agents), and with a skill that
vendors a tree of 2 000 files of 4 KB. Beside it, a whole config load in that folder (medians):
the load asks the folder's trust once however many layers need it (trust.StateOnce).

Run: .venv/bin/python benchmarks/trust_hash.py
No target in the issue: the point is that a typical project adds well under a millisecond, and
that even a large vendored skill tree stays far below a start-up's cost.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUNS = 15


def put(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def typical(folder: Path) -> None:
    for n in range(20):
        put(folder / f".claude/commands/cmd{n}.md", f"---\ndescription: command {n}\n---\nDo {n}.\n" * 5)
    for n in range(5):
        put(folder / f".claude/skills/s{n}/SKILL.md", f"---\nname: s{n}\ndescription: d\n---\n" + "x\n" * 200)
        put(folder / f".agent-tui/agents/a{n}.md", f"---\nname: a{n}\ndescription: d\n---\nPrompt.\n")


def vendored(folder: Path) -> None:
    typical(folder)
    for n in range(2000):
        put(folder / f".claude/skills/big/lib/m{n // 100}/f{n}.py", "# x\n" * 1000)


def median_ms(folder: Path) -> tuple[float, float]:
    """Medians of one `trust.state` and of one whole config load (what a start pays)."""
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config
    from agent_tui.policy import trust

    trust.add(folder)
    times, loads = [], []
    for _ in range(RUNS):
        started = time.perf_counter()
        assert trust.state(folder) == "trusted"
        times.append(time.perf_counter() - started)
        started = time.perf_counter()
        assert load_config(cwd=folder, env={}, rule_words=SHIPPED_WORDS).trust == "trusted"
        loads.append(time.perf_counter() - started)
    return statistics.median(times) * 1000, statistics.median(loads) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        os.environ["AGENT_TUI_HOME"] = str(tmp / "home")
        rows = []
        for label, build in (
            ("only .agent-tui.toml", None),
            ("typical .claude/ (30 files)", typical),
            ("vendored skill (2 030 files)", vendored),
        ):
            folder = tmp / label.split()[0].strip(".")
            put(folder / ".agent-tui.toml", "[agent]\nmax_steps = 9\n")
            if build is not None:
                build(folder)
            rows.append((label, median_ms(folder)))
    base, base_load = rows[0][1]
    print(
        f"{'folder':<30} {'ms / trust.state':>17} {'× baseline':>11} {'ms / config load':>17} {'× baseline':>11}"
    )
    for label, (ms, load) in rows:
        print(f"{label:<30} {ms:>17.2f} {ms / base:>11.1f} {load:>17.2f} {load / base_load:>11.1f}")


if __name__ == "__main__":
    main()
