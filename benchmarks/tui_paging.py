"""Paging up through a long chat in the TUI: what one PageUp costs, from the bottom.

Run: .venv/bin/python benchmarks/tui_paging.py [--pages 20] [--repeat 3] [--tree PATH]

A real app (run_test, 120×36) opens a 2 000-message session from a real SQLite store, focuses
the chat and presses PageUp `--pages` times from the bottom. Per key: the app thread's CPU
(`time.thread_time`, so the other jobs on the machine do not count) and the wall time, from just
before the key to the next refresh after it; then the whole run to idle. Older entries are
mounted in batches after the key's refresh, so a key's batch may land in the next key's window:
the total is the figure that cannot hide work. The wall time is not a latency: Pilot waits
for Textual's scroll animation to end after each key (~0.3-0.6 s, shorter when a batch's mount
stops it early), and the animation's dozen frames are part of each key's CPU. The baseline column is the same run on a
200-message session in the same process (little to mount, the top near).

`--tree PATH` runs the same benchmark against another checkout's `agent_tui` (a `git worktree`
of the commit before a change), for a before/after with the same script.
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
HERE = Path(__file__).resolve().parent


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20, help="PageUps per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per session size")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="checkout whose agent_tui to run")
    return parser.parse_args()


async def bench(pages: int, repeat: int, sizes: tuple[int, ...]) -> dict[int, dict[str, list[float]]]:
    from tui import make_db  # benchmarks/tui.py: the same sessions as `bench_open_and_keys`

    from agent_tui.compose.factory import build_services
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config
    from agent_tui.frontends.tui.app import AgentApp
    from agent_tui.frontends.tui.widgets.chat import ChatPane
    from testkit.fake_openai import FakeOpenAI

    results: dict[int, dict[str, list[float]]] = {
        size: {"cpu": [], "wall": [], "total_cpu": [], "total_wall": [], "mounted": []} for size in sizes
    }
    with FakeOpenAI(window=200_000) as server, tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        config = load_config(
            overrides={
                "model": {
                    "name": "openai/fake-model",
                    "api_base": server.base_url,
                    "context_window": 200_000,
                },
                "store": {"db": str(Path(tmp) / "paging.db")},
            },
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        ids = await make_db(config, workspace, sizes)
        app = AgentApp(lambda: build_services(config, workspace=workspace), workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await _idle(pilot)
            for _ in range(repeat):
                for size, session_id in ids.items():  # alternated, so load hits both alike
                    await app.view.open_new(session_id)
                    await _idle(pilot)
                    chat = app.view.query_one(ChatPane)
                    chat.focus()
                    await _refreshed(chat)
                    got = results[size]
                    run_cpu, run_wall = time.thread_time(), time.perf_counter()
                    for _ in range(pages):
                        cpu, wall = time.thread_time(), time.perf_counter()
                        await pilot.press("pageup")
                        await _refreshed(chat)
                        got["cpu"].append(time.thread_time() - cpu)
                        got["wall"].append(time.perf_counter() - wall)
                    await _settled(pilot, chat)
                    got["total_cpu"].append(time.thread_time() - run_cpu)
                    got["total_wall"].append(time.perf_counter() - run_wall)
                    got["mounted"].append(chat.mounted_count)
    return results


async def _refreshed(widget) -> None:
    drawn = asyncio.Event()
    widget.call_after_refresh(drawn.set)
    await drawn.wait()


async def _settled(pilot, chat) -> None:
    """Until the batches the last keys asked for are mounted and drawn."""
    await _idle(pilot)
    while chat._loading_older:
        await _refreshed(chat)
    await _refreshed(chat)


async def _idle(pilot) -> None:
    app = pilot.app
    while True:
        await asyncio.gather(*(w.wait() for w in list(app.workers)), return_exceptions=True)
        await pilot.pause()
        if all(w.is_finished for w in app.workers) and not app.view.busy:
            return


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    args = _args()
    tree = args.tree.resolve()
    # The tree's own benchmarks/tui.py (make_db): it puts its tree first on the path as it loads.
    sys.path[:0] = [str(tree), str(tree / "benchmarks")]
    big, small = 2000, 200
    results = asyncio.run(bench(args.pages, args.repeat, (small, big)))
    import agent_tui

    assert Path(agent_tui.__file__).is_relative_to(tree), agent_tui.__file__
    print(f"tree {tree}: {args.pages} PageUps from the bottom × {args.repeat} runs, 120×36")
    print(f"{'per PageUp (ms)':<34} {big:>6} msgs {small:>6} msgs   ratio")

    def line(name: str, key: str, pick) -> None:
        ours, base = pick(results[big][key]) * 1000, pick(results[small][key]) * 1000
        print(f"{name:<34} {ours:>11.1f} {base:>11.1f} {ours / max(base, 1e-9):>7.2f}×")

    for what in ("cpu", "wall"):
        label = "app thread CPU" if what == "cpu" else "wall"
        line(f"{label}: median", what, statistics.median)
        line(f"{label}: p95", what, _p95)
        line(f"{label}: max", what, max)
    line("run to idle, app thread CPU (med)", "total_cpu", statistics.median)
    line("run to idle, wall (median)", "total_wall", statistics.median)
    print(
        f"{'entries mounted after the run':<34} {statistics.median(results[big]['mounted']):>11.0f} "
        f"{statistics.median(results[small]['mounted']):>11.0f}"
    )


if __name__ == "__main__":
    main()
