"""Reply answered → reply drawn, turn after turn, in one process (no tmux, no polling).

Run: .venv/bin/python benchmarks/tui_reply_drawn.py [--turns 300] [--repeat 1]

`tui_tmux_turns.py` measures this in a real terminal, where tmux and the 5 ms polling add their
own noise; `tui_step.py` starts its clock only once the session yields the finished turn, after
the reply is already on screen. This one starts it where the user's wait starts: the local
server stamps the moment it answers turn N with a token naming N, and the clock stops at the
first refresh after the token reached the reply's widget. Work the UI does per reply that grows
with the chat (every mounted item laid out again, say) shows as a ratio above 1 against turns
2-6 of the same run.

Beside the wall time it reports the CPU time the app's thread (the event loop, where layout and
rendering happen) spent over the same span, read from the server's thread through the main
thread's CPU clock: on a loaded machine the wall time is mostly other processes' turns, the CPU
time is the work this one did.
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
sys.path.insert(0, str(ROOT / "benchmarks"))


async def bench(turns: int) -> tuple[dict[int, float], dict[int, float]]:
    """Seconds from the server's answer to the token drawn, by turn number: wall, and the app
    thread's CPU."""
    import threading

    from tui import _idle

    from agent_tui.compose.factory import build_services
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config
    from agent_tui.frontends.tui.app import AgentApp
    from agent_tui.frontends.tui.widgets import chat_items
    from testkit.fake_openai import FakeOpenAI, Reply

    answered: dict[int, float] = {}
    drawn: dict[int, float] = {}
    cpu_answered: dict[int, float] = {}
    cpu_drawn: dict[int, float] = {}
    mounted: list[int] = []
    main_thread = threading.main_thread().ident
    assert main_thread is not None
    app_cpu = time.pthread_getcpuclockid(main_thread)

    def responder(body: dict) -> Reply:
        last = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        text = last if isinstance(last, str) else " ".join(p.get("text", "") for p in last)
        n = int(text.split("turn")[-1].split()[0])
        answered[n] = time.perf_counter()
        cpu_answered[n] = time.clock_gettime(app_cpu)
        return Reply(text=f"Fixed the **total** for zq{n}x.")

    # Where a reply's text reaches its widget: `update`, from `set_entry` while it streams and
    # from the mount when the widget is mounted with its first text (both trees, for --base runs).
    original = chat_items.AgentItem.update

    def update(item: chat_items.AgentItem, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        original(item, *args, **kwargs)
        text = item.entry.text
        if "zq" in text and text.rstrip().endswith("x."):
            n = int(text.split("zq")[-1].split("x")[0])
            if n not in drawn:

                def stamp() -> None:
                    if n not in drawn:
                        drawn[n] = time.perf_counter()
                        cpu_drawn[n] = time.clock_gettime(app_cpu)

                item.call_after_refresh(stamp)

    chat_items.AgentItem.update = update  # type: ignore[method-assign]
    with FakeOpenAI(window=400_000, responder=responder) as server, tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        config = load_config(
            overrides={
                "model": {
                    "name": "openai/fake-model",
                    "api_base": server.base_url,
                    "context_window": 128_000,
                },
                "store": {"db": str(Path(tmp) / "drawn.db")},
            },
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        app = AgentApp(lambda: build_services(config, workspace=workspace), workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await _idle(pilot)
            for n in range(1, turns + 1):
                server.requests.clear()  # the server's memory of 600 messages is not the app's
                await app.view.send(f"turn{n} go")
                await _idle(pilot)
                while n not in drawn:
                    await pilot.pause()
            mounted.append(app.view.chat.mounted_count)
    chat_items.AgentItem.update = original  # type: ignore[method-assign]
    wall = {n: drawn[n] - answered[n] for n in drawn if n in answered}
    print(f"chat items mounted after turn {turns}: {mounted[0]}")
    return wall, {n: cpu_drawn[n] - cpu_answered[n] for n in wall}


def _median_ms(seen: dict[int, float], first: int, last: int) -> float:
    return statistics.median(seen[i] for i in range(first, last + 1) if i in seen) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=1, help="runs; each turn's figure the median over them")
    args = parser.parse_args()
    turns = max(args.turns, 40)
    runs = [asyncio.run(bench(turns)) for _ in range(max(1, args.repeat))]
    wall, cpu = (
        {n: statistics.median(run[i][n] for run in runs if n in run[i]) for n in runs[0][i]} for i in (0, 1)
    )
    print(
        f"reply answered → drawn (Pilot 120×36, one process), medians of {len(runs)} run(s) per turn,"
        f" then over the turns · load {os.getloadavg()[0]:.1f}"
        f" · {time.strftime('%Y-%m-%d %H:%M')}"
    )
    print(f"{'':10}{'turns 2-6':>12}{'turns 26-35':>14}{f'last 10 (to {turns})':>20}{'÷ turns 2-6':>14}")
    for name, seen in (("wall", wall), ("app CPU", cpu)):
        early, middle, late = (
            _median_ms(seen, 2, 6),
            _median_ms(seen, 26, 35),
            _median_ms(seen, turns - 9, turns),
        )
        print(f"{name:10}{early:9.1f} ms{middle:11.1f} ms{late:17.1f} ms{late / early:13.2f}×")


if __name__ == "__main__":
    main()
