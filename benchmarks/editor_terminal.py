"""What running `bash` in the editor's terminal costs: the same turn (one command, then a reply)
over ACP with our own bash (the baseline) and with a client that offers `terminal` and runs the
command itself (terminal/create, wait_for_exit, output, release: four round trips more).

Run: .venv/bin/python benchmarks/editor_terminal.py [--turns 10] [--lines 2000]
The ratio is terminal ÷ own bash for the median turn; both sessions run with the sandbox off and
the approval answered at once by the client, so the difference is who runs the command.
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

from acp import schema as s  # noqa: E402 - imported after the sys.path set-up above
from acp import text_block  # noqa: E402 - imported after the sys.path set-up above

from testkit.fake_openai import FakeOpenAI, Reply  # noqa: E402 - imported after the sys.path set-up above
from tests.support.acp_client import open_session  # noqa: E402 - the tests' client, with real terminals


async def turns(
    server: FakeOpenAI, db: Path, workspace: Path, count: int, lines: int, caps: s.ClientCapabilities | None
) -> list[float]:
    times = []
    async with open_session(server, db, workspace, "--sandbox", "off", capabilities=caps) as (
        conn,
        client,
        sid,
    ):
        for k in range(count):
            server.enqueue(Reply(tool_calls=[("bash", {"command": f"seq 1 {lines}"})]), Reply(text="done"))
            client.answers = ["allow_once"]
            start = time.perf_counter()
            await conn.prompt(session_id=sid, prompt=[text_block(f"turn {k}")])
            times.append(time.perf_counter() - start)
        used = len(client.terminals.requests)
    assert used == (count if caps is not None else 0), used
    return times


async def main(count: int, lines: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(window=200_000) as server:
        root = Path(tmp)
        os.environ["AGENT_TUI_HOME"] = str(root / "home")
        os.environ["PYTHONPATH"] = str(ROOT)
        workspace = root / "ws"
        workspace.mkdir()
        own = await turns(server, root / "own.db", workspace, count, lines, None)
        editor = await turns(
            server, root / "term.db", workspace, count, lines, s.ClientCapabilities(terminal=True)
        )
    own_median, editor_median = statistics.median(own), statistics.median(editor)
    print(f"{'row':<44} {'value':>12}  note")
    print(f"{'turn with our bash (baseline), median':<44} {own_median * 1e3:>9.1f} ms  seq 1 {lines}")
    print(f"{'turn with the editor terminal, median':<44} {editor_median * 1e3:>9.1f} ms  4 round trips more")
    print(f"{'ratio terminal / own bash':<44} {editor_median / own_median:>11.2f}×")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--lines", type=int, default=2000)
    options = parser.parse_args()
    asyncio.run(main(options.turns, options.lines))
