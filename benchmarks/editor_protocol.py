"""What speaking ACP costs: start-up to `initialize`, `session/new`, and a streamed turn through the
protocol against the same turn consumed in-process (the baseline: the loop's own event stream).

Run: .venv/bin/python benchmarks/editor_protocol.py [--turns 20] [--words 300]
The turn ratio is ACP ÷ in-process for the same scripted reply (one word per chunk, so every
chunk is one `session/update` line): the protocol's overhead per turn and per update.
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

from acp import text_block  # noqa: E402 - imported after the sys.path set-up above
from acp.stdio import spawn_agent_process  # noqa: E402 - imported after the sys.path set-up above

from agent_tui.compose.factory import build_services  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.compose.rule_words import SHIPPED_WORDS  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.config import load_config  # noqa: E402 - imported after the sys.path set-up above
from testkit.fake_openai import FakeOpenAI, Reply  # noqa: E402 - imported after the sys.path set-up above


class Quiet:
    """A client that only counts updates."""

    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, session_id, update, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.updates += 1

    async def request_permission(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the benchmark's turns call no tools")


def reply(words: int) -> Reply:
    return Reply(text=" ".join(f"w{i}" for i in range(words)), words_per_chunk=1)


async def in_process(server: FakeOpenAI, db: Path, workspace: Path, turns: int, words: int) -> list[float]:
    overrides = {
        "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": 200_000},
        "store": {"db": str(db)},
    }
    config = load_config(overrides=overrides, cwd=workspace, rule_words=SHIPPED_WORDS).config
    services = await build_services(config, workspace=workspace, start_mcp=False)
    try:
        session = await services.new_session()
        times = []
        for k in range(turns):
            server.enqueue(reply(words))
            start = time.perf_counter()
            async for _event in session.run_turn(f"turn {k}"):
                pass
            times.append(time.perf_counter() - start)
        return times
    finally:
        await services.close()


async def over_acp(server: FakeOpenAI, db: Path, workspace: Path, turns: int, words: int) -> dict:
    client = Quiet()
    args = ["-m", "agent_tui", "acp", "--model", "openai/fake-model", "--api-base", server.base_url]
    args += ["--context-window", "200000", "--db", str(db)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    started = time.perf_counter()
    async with spawn_agent_process(client, sys.executable, *args, env=env, cwd=workspace) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        ready = time.perf_counter() - started
        start = time.perf_counter()
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        created = time.perf_counter() - start
        times = []
        before = client.updates
        for k in range(turns):
            server.enqueue(reply(words))
            start = time.perf_counter()
            await conn.prompt(session_id=new.session_id, prompt=[text_block(f"turn {k}")])
            times.append(time.perf_counter() - start)
        updates = (client.updates - before) / turns
    return {"ready": ready, "new": created, "turns": times, "updates": updates}


async def main(turns: int, words: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(window=200_000) as server:
        root = Path(tmp)
        os.environ["AGENT_TUI_HOME"] = str(root / "home")
        workspace = root / "ws"
        workspace.mkdir()
        base = await in_process(server, root / "base.db", workspace, turns, words)
        acp = await over_acp(server, root / "acp.db", workspace, turns, words)
    base_median, acp_median = statistics.median(base), statistics.median(acp["turns"])
    per_update = (acp_median - base_median) / max(acp["updates"], 1)
    print(f"{'row':<44} {'value':>12}  note")
    print(f"{'start-up to initialize answered':<44} {acp['ready'] * 1e3:>9.0f} ms  new process")
    print(f"{'session/new':<44} {acp['new'] * 1e3:>9.0f} ms  store, sandbox probe, session")
    print(f"{'turn in-process (baseline), median':<44} {base_median * 1e3:>9.1f} ms  {words} chunks")
    print(f"{'turn over ACP, median':<44} {acp_median * 1e3:>9.1f} ms  {acp['updates']:.0f} updates")
    print(f"{'ratio ACP / in-process':<44} {acp_median / base_median:>11.2f}×")
    print(f"{'overhead per session/update':<44} {per_update * 1e6:>9.0f} µs")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--words", type=int, default=300)
    options = parser.parse_args()
    asyncio.run(main(options.turns, options.words))
