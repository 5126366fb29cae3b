"""`agent-tui serve`: what the server adds to a turn's events and how fast it starts.

Run: .venv/bin/python benchmarks/serve.py [--turns 20] [--repeat 5]

1. Event latency: the same one-reply turn against the local fake model server, driven in
   process by a `SessionDriver` (core/driver.py) and through a real `agent-tui serve`
   subprocess with the typed client (submit over HTTP, events over SSE). Measured from the
   submit to the `work_finished` event in the consumer's hands; the ratio is server / in-process.
   A third row drives the same turn through a `RemoteDriver` (frontends/server/remote.py), what
   `agent-tui --attach` uses: the same HTTP path plus decoding every event back into its class.
2. Start-up: launch → the URL printed and the socket listening, beside `agent-tui --version`
   (the CLI's own start-up) and the import of starlette + uvicorn alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testkit.fake_openai import FakeOpenAI, Reply  # noqa: E402


def write_config(home: Path, server: FakeOpenAI, db: Path) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(
        f'[model]\nname = "openai/fake-model"\napi_base = "{server.base_url}"\ncontext_window = 32000\n'
        f'[store]\ndb = "{db}"\n[sandbox]\nmode = "off"\n'
    )


async def in_process(server: FakeOpenAI, turns: int, workspace: Path) -> list[float]:
    from agent_tui.compose.factory import build_services
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config
    from agent_tui.core import ops
    from agent_tui.core.driver import SessionDriver

    services = await build_services(
        load_config(cwd=workspace, rule_words=SHIPPED_WORDS).config, workspace=workspace
    )
    driver = SessionDriver(services)
    driver.session = await services.new_session(driver.approver)
    times = []
    for _ in range(turns):
        server.enqueue(Reply(text="ok"))
        start = time.perf_counter()
        async for event in driver.drive(ops.Send("hi")):
            if event.type == "work_finished":
                times.append(time.perf_counter() - start)
    await driver.close()
    await services.close()
    return times


def launch(env: dict[str, str], workspace: Path) -> tuple[subprocess.Popen[str], str, str, float]:
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "serve", "--port", "0"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    first, second = process.stdout.readline(), process.stdout.readline()
    took = time.perf_counter() - start
    return process, first.split()[2], second.split()[1], took


async def through_server(url: str, token: str, server: FakeOpenAI, turns: int) -> list[float]:
    from agent_tui.core import ops
    from agent_tui.frontends.server.client import AgentClient

    times = []
    async with AgentClient(url, token) as client:
        session = await client.create_session()
        for _ in range(turns):
            server.enqueue(Reply(text="ok"))
            start = time.perf_counter()
            after = await client.submit(session, ops.Send("hi"))
            stream = client.events(session, after)
            async for event in stream:
                if event.type == "work_finished":
                    times.append(time.perf_counter() - start)
                    break
            await stream.aclose()
    return times


async def through_remote_driver(url: str, token: str, server: FakeOpenAI, turns: int) -> list[float]:
    from agent_tui.core import ops
    from agent_tui.frontends.server.client import AgentClient
    from agent_tui.frontends.server.remote import RemoteDriver

    times = []
    async with AgentClient(url, token) as client:
        driver = await RemoteDriver.attach(client)
        for _ in range(turns):
            server.enqueue(Reply(text="ok"))
            start = time.perf_counter()
            async for event in driver.drive(ops.Send("hi")):
                if event.type == "work_finished":
                    times.append(time.perf_counter() - start)
        await driver.close()
    return times


def timed(command: list[str], env: dict[str, str], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, env=env, capture_output=True, check=True)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(window=32_000) as server:
        home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
        workspace.mkdir()
        write_config(home, server, Path(tmp) / "bench.db")
        os.environ["AGENT_TUI_HOME"] = str(home)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        local = asyncio.run(in_process(server, args.turns, workspace))
        starts, remote, attached = [], [], []
        for i in range(args.repeat):
            process, url, token, took = launch(env, workspace)
            starts.append(took)
            if i == 0:
                remote = asyncio.run(through_server(url, token, server, args.turns))
                attached = asyncio.run(through_remote_driver(url, token, server, args.turns))
            process.terminate()
            process.wait(timeout=30)
        version = timed([sys.executable, "-m", "agent_tui", "--version"], env, args.repeat)
        imports = timed([sys.executable, "-c", "import starlette.applications, uvicorn"], env, args.repeat)
    lo, re_ = statistics.median(local), statistics.median(remote)
    print(f"{'measure':<46} {'median':>10}")
    print(f"{'turn submit → work_finished, in process':<46} {lo * 1000:>8.1f} ms")
    print(f"{'turn submit → work_finished, through serve':<46} {re_ * 1000:>8.1f} ms")
    print(f"{'ratio server / in process':<46} {re_ / lo:>9.2f}x")
    at = statistics.median(attached)
    print(f"{'same, typed events (RemoteDriver, --attach)':<46} {at * 1000:>8.1f} ms")
    print(f"{'ratio RemoteDriver / in process':<46} {at / lo:>9.2f}x")
    print(f"{'serve launch → listening, URL printed':<46} {statistics.median(starts) * 1000:>8.0f} ms")
    print(f"{'agent-tui --version (baseline)':<46} {version * 1000:>8.0f} ms")
    print(f"{'import starlette + uvicorn alone':<46} {imports * 1000:>8.0f} ms")
    print(f"({args.turns} turns, {args.repeat} launches, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
