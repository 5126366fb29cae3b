"""TUI cost while the agent works (issue 19 item 5 and the step part of `benchmarks/tui.py`).

Run: .venv/bin/python benchmarks/tui_step.py  (also run at the end of benchmarks/tui.py)

1. key → next refresh while a step runs on a 1 500-message session: keys typed into the prompt
   while the reply streams from the local server (p95 and max; targets p95 ≤ 50 ms, max ≤ 100 ms),
   beside the same keys on the same session while idle.
2. reply received → reply on screen at turns 2, 30 and 300 of a scripted chat: from the moment
   the session yields the finished turn (the whole reply is in) to the next refresh after the UI
   handled it. Flat means turn 300 costs what turn 2 costs (ratio against turn 2, same run).
"""

from __future__ import annotations

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

REPLY = "Fixed: the total ignored **quantities**.\n\n```python\ntotal = sum(i.price * i.qty for i in items)\n```\n"
KEYS = list("fix the flaky cart test and run it again ") * 2


def _config(server, tmp: Path, workspace: Path, window: int = 400_000):
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config

    return load_config(
        overrides={
            "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": window},
            "store": {"db": str(tmp / "step.db")},
        },
        cwd=workspace,
        env={},
        rule_words=SHIPPED_WORDS,
    ).config


async def _type(pilot, app) -> list[float]:
    """Key → next refresh for each key typed, as the app records it (agent_tui.runtime.instrument)."""
    from agent_tui.runtime import instrument

    app.view.prompt.focus()
    with instrument.recording() as rec:
        for key in KEYS:
            await pilot.press("space" if key == " " else key)
        timings = rec.durations("key")
    app.view.prompt.set_text("")
    return timings


async def bench_keys_during_step() -> dict[str, list[float]]:
    """Keys while idle, then while a slowly streamed reply arrives, on 1 500 messages."""
    from tui import _idle, make_db

    from agent_tui.compose.factory import build_services
    from agent_tui.frontends.tui.app import AgentApp
    from testkit.fake_openai import FakeOpenAI, Reply

    def responder(body: dict) -> Reply:
        return Reply(text=" ".join(f"word{i}" for i in range(400)), chunk_delay=0.01)

    with FakeOpenAI(window=400_000, responder=responder) as server, tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        config = _config(server, Path(tmp), workspace)
        ids = await make_db(config, workspace, (1500,))
        app = AgentApp(
            lambda: build_services(config, workspace=workspace), workspace=workspace, session_id=ids[1500]
        )
        async with app.run_test(size=(120, 36)) as pilot:
            await _idle(pilot)
            idle = await _type(pilot, app)
            during: list[float] = []
            for _ in range(3):
                view = app.view
                await view.send("explain the failure")
                while not server.requests or view._live is None:  # the reply has started streaming
                    await asyncio.sleep(0.005)
                during += await _type(pilot, app)
                view.cancel()
                await _idle(pilot)
    return {"idle": idle, "during": during}


async def bench_reply_to_screen(turns: int = 300) -> dict[int, float]:
    """Per turn: the finished turn yielded by the session → the UI drew it."""
    from tui import _idle

    from agent_tui.agent import events as ev
    from agent_tui.compose.factory import build_services
    from agent_tui.frontends.tui.app import AgentApp
    from testkit.fake_openai import FakeOpenAI, Reply

    received: dict[int, float] = {}
    shown: dict[int, float] = {}
    with FakeOpenAI(window=400_000, responder=lambda body: Reply(text=REPLY)) as server:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
            workspace = Path(tmp) / "ws"
            workspace.mkdir()
            config = _config(server, Path(tmp), workspace)
            app = AgentApp(lambda: build_services(config, workspace=workspace), workspace=workspace)
            async with app.run_test(size=(120, 36)) as pilot:
                await _idle(pilot)
                view = app.view
                session = view.session
                original = session.run_turn

                async def timed_turn(prompt: str, **kwargs):
                    async for event in original(prompt, **kwargs):
                        if isinstance(event, ev.TurnFinished):
                            received[session.turns] = time.perf_counter()
                        yield event

                session.run_turn = timed_turn
                handle = view.render_event

                async def drawn_after(event):
                    await handle(event)
                    if isinstance(event, ev.TurnFinished):
                        turn = session.turns
                        view.call_after_refresh(lambda: shown.setdefault(turn, time.perf_counter()))

                view.render_event = drawn_after
                for turn in range(1, turns + 1):
                    # The fake server runs in this process and keeps every request (turn 300's
                    # holds 600 messages): its heap is not the app's, and its garbage is not either.
                    server.requests.clear()
                    await view.send(f"question {turn}: why does test {turn} fail?")
                    await _idle(pilot)
                    while turn not in shown:
                        await pilot.pause()
    return {turn: shown[turn] - received[turn] for turn in shown if turn in received}


def _around(costs: dict[int, float], turn: int, spread: int = 5) -> float:
    # Turn 1 also pays the first request's warm-up: it is no one's baseline.
    window = [costs[t] for t in range(max(2, turn - spread), turn + spread + 1) if t in costs]
    return statistics.median(window)


def print_rows(keys: dict[str, list[float]], costs: dict[int, float]) -> None:
    from tui import row

    p95 = lambda xs: sorted(xs)[max(0, int(len(xs) * 0.95) - 1)]  # noqa: E731
    during, idle = keys["during"], keys["idle"]
    print(
        row(
            "key → refresh during a step, 1 500 (p95)",
            p95(during),
            p95(idle),
            "≤ 50 ms · baseline: idle",
            "ms",
        )
    )
    print(
        row(
            "key → refresh during a step, 1 500 (max)",
            max(during),
            max(idle),
            "≤ 100 ms · baseline: idle",
            "ms",
        )
    )
    base = _around(costs, 2)
    for turn in (2, 30, 300):
        if turn in costs:
            print(
                row(
                    f"reply received → on screen, turn {turn}",
                    _around(costs, turn),
                    base,
                    "flat · baseline: turn 2",
                    "ms",
                )
            )
    print(f"keys timed: {len(during)} during steps, {len(idle)} idle; turns run: {len(costs)}")


def main() -> None:
    keys = asyncio.run(bench_keys_during_step())
    costs = asyncio.run(bench_reply_to_screen())
    print(f"{'measure (median)':<44} {'agent-tui':>12} {'baseline':>12} {'ratio':>8}  target")
    print("-" * 100)
    print_rows(keys, costs)


if __name__ == "__main__":
    main()
