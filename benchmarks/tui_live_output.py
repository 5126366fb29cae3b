"""A chatty command's live output: what it costs the screen, against the same command unwatched.

Run: .venv/bin/python benchmarks/tui_live_output.py [--lines 20000]

The user runs `!cmd` for a command printing LINES lines in small writes (a shell loop: thousands
of pieces). Live output (agent/live_output.py → the tool line's newest lines) must not make the
command slower nor the screen busier per piece: pieces between two looks of the loop become one
event, and the tool line paints on its 0.1 s tick, laying out only when its number of rows
changes. The baseline is the same command in the same process with the live feed switched off
(the tool gets no `on_output`), so the ratio is the whole price of watching.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


async def bench(lines: int) -> dict[str, dict[str, float]]:
    from tui import _idle

    from agent_tui.agent import tool_runner
    from agent_tui.compose.factory import build_services
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config
    from agent_tui.frontends.tui.app import AgentApp
    from agent_tui.frontends.tui.widgets import chat_items
    from testkit.fake_openai import FakeOpenAI

    counts = {"events": 0, "paints": 0, "layouts": 0}
    add_output, update = chat_items.ToolLine.add_output, chat_items.ToolLine.update

    def counting_add(line: chat_items.ToolLine, text: str) -> None:
        counts["events"] += 1
        add_output(line, text)

    def counting_update(line, *args, layout: bool = True, **kwargs):  # type: ignore[no-untyped-def]
        if line.entry.state == "running":
            counts["paints"] += 1
            counts["layouts"] += bool(layout)
        return update(line, *args, layout=layout, **kwargs)

    chat_items.ToolLine.add_output = counting_add  # type: ignore[method-assign]
    chat_items.ToolLine.update = counting_update  # type: ignore[method-assign]
    feeder = tool_runner.LiveOutput.feeder
    command = f"!i=0; while [ $i -lt {lines} ]; do i=$((i+1)); echo line $i of the build; done"
    results: dict[str, dict[str, float]] = {}
    with FakeOpenAI(window=400_000) as server, tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        overrides = {
            "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": 128_000},
            "store": {"db": str(Path(tmp) / "live.db")},
            "sandbox": {"mode": "off"},
        }
        config = load_config(overrides=overrides, cwd=workspace, env={}, rule_words=SHIPPED_WORDS).config
        app = AgentApp(lambda: build_services(config, workspace=workspace), workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await _idle(pilot)
            for mode in ("unwatched", "live", "unwatched ", "live "):
                if mode.startswith("unwatched"):
                    tool_runner.LiveOutput.feeder = lambda self, call_id: None  # type: ignore[method-assign,assignment,return-value]
                else:
                    tool_runner.LiveOutput.feeder = feeder  # type: ignore[method-assign]
                for key in counts:
                    counts[key] = 0
                started = time.perf_counter()
                await app.view.send(command)
                await _idle(pilot)
                while app.view.busy:
                    await pilot.pause()
                results[mode.strip()] = {"seconds": time.perf_counter() - started, **counts}
    tool_runner.LiveOutput.feeder = feeder  # type: ignore[method-assign]
    chat_items.ToolLine.add_output, chat_items.ToolLine.update = add_output, update  # type: ignore[method-assign]
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=20_000)
    lines = parser.parse_args().lines
    seen = asyncio.run(bench(lines))
    base = seen["unwatched"]["seconds"]
    print(
        f"!cmd printing {lines:,} lines (Pilot 120×36, one process; second run of each) · load {os.getloadavg()[0]:.1f}"
    )
    print(f"{'mode':>10}{'wall':>10}{'÷ unwatched':>13}{'events':>9}{'paints':>9}{'layouts':>9}")
    for mode, row in seen.items():
        print(
            f"{mode:>10}{row['seconds']:9.2f}s{row['seconds'] / base:12.2f}×"
            f"{row['events']:9.0f}{row['paints']:9.0f}{row['layouts']:9.0f}"
        )


if __name__ == "__main__":
    main()
