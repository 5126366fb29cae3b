"""A real `agent-tui serve` subprocess for the server tests: started on a free port against the
local fake model server, its URL and token read from the two lines it prints at start."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

from agent_tui.frontends.server.client import ServerEvent
from testkit.fake_openai import FakeOpenAI
from tests.support.extend import write_user_config

ROOT = Path(__file__).resolve().parent.parent.parent


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    token: str
    token_file: Path

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.terminate()
        return self.process.wait(timeout=30)


def start_serve(server: FakeOpenAI, db: Path, workspace: Path, *args: str) -> Served:
    write_user_config(server, db, '[sandbox]\nmode = "off"\n')
    env = {
        # not the test process's own ownership marker: the server marks the commands it starts
        **{k: v for k, v in os.environ.items() if k != "AGENT_TUI_OWNER"},
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "serve", "--port", "0", *args],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    with ThreadPoolExecutor(1) as pool:  # a server that never starts fails the test, never hangs it
        lines = pool.submit(lambda: (process.stdout.readline(), process.stdout.readline()))  # type: ignore[union-attr]
        try:
            first, second = lines.result(timeout=90)
        except FutureTimeout:
            process.kill()
            raise AssertionError("agent-tui serve printed no URL within 90 s") from None
    if not first.startswith("agent-tui serve: "):
        process.kill()
        raise AssertionError(
            f"serve did not start: {first!r} {process.stderr.read() if process.stderr else ''}"
        )
    url = first.split()[2]
    token = second.split()[1]
    token_file = Path(second.split("also in ", 1)[1].split(",", 1)[0])
    return Served(process, url, token, token_file)


WAIT = 60
"""Seconds a test waits for the server's next event."""


async def until(events, kind: str) -> list[ServerEvent]:
    """Events up to and including the first of `kind`."""
    seen = []
    async for event in events:
        seen.append(event)
        if event.type == kind:
            return seen
    raise AssertionError(f"the stream ended before {kind}")
