"""Test support for `agent-tui acp`: the ACP Python SDK's client side against our subprocess.

`RecordingClient` is an editor as a test needs one: it records every `session/update` in arrival
order and answers permission requests from a script. `open_agent` starts `python -m agent_tui
acp` (our tree first on PYTHONPATH) against the local fake OpenAI server.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import schema as s
from acp.stdio import spawn_agent_process

from testkit.fake_openai import FakeOpenAI
from tests.support.cli import flags

WAIT = 60.0
"""Upper bound for any one wait on the agent (a deadline, never a pacing sleep)."""


class RecordingClient:
    """Records updates; answers `session/request_permission` with `answers` in order."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.permissions: list[tuple[s.ToolCallUpdate, list[s.PermissionOption]]] = []
        self.answers: list[str | None] = []
        """Option ids to pick, in order; None answers "cancelled"."""
        self.buffers: dict[str, str] = {}
        """Open editor buffers by absolute path (unsaved text); `fs/read_text_file` reads them,
        else the disk."""
        self.writes: list[tuple[str, str]] = []
        """(path, content) of every `fs/write_text_file`."""
        self._changed = asyncio.Condition()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        async with self._changed:
            self.updates.append(update)
            self._changed.notify_all()

    async def request_permission(
        self, options: list[s.PermissionOption], session_id: str, tool_call: s.ToolCallUpdate, **kwargs: Any
    ) -> s.RequestPermissionResponse:
        async with self._changed:
            self.permissions.append((tool_call, options))
            self._changed.notify_all()
        answer = self.answers.pop(0) if self.answers else None
        if answer is None:
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        return s.RequestPermissionResponse(outcome=s.AllowedOutcome(outcome="selected", option_id=answer))

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> s.ReadTextFileResponse:
        if path in self.buffers:
            return s.ReadTextFileResponse(content=self.buffers[path])
        return s.ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, content: str, path: str, session_id: str, **kwargs: Any) -> None:
        self.writes.append((path, content))

    async def wait_for(self, predicate: Callable[[], bool]) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), WAIT)

    def of(self, kind: str) -> list[Any]:
        """The updates whose `sessionUpdate` is `kind`, in order."""
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind) if hasattr(u.content, "text"))

    def clear(self) -> None:
        self.updates.clear()
        self.permissions.clear()


def agent_args(server: FakeOpenAI, db: Path, *extra: str, window: int = 32_000) -> list[str]:
    return ["-m", "agent_tui", "acp", *flags(server, db, window), *extra]


def agent_env() -> dict[str, str]:
    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


@asynccontextmanager
async def open_agent(
    server: FakeOpenAI,
    db: Path,
    workspace: Path,
    *extra: str,
    window: int = 32_000,
    capabilities: s.ClientCapabilities | None = None,
) -> AsyncIterator[tuple[Any, asyncio.subprocess.Process, RecordingClient]]:
    """A connected, initialized client and the agent's process (stderr kept beside the db)."""
    client = RecordingClient()
    with open(db.with_suffix(".stderr"), "ab") as stderr:
        async with spawn_agent_process(
            client,
            sys.executable,
            *agent_args(server, db, *extra, window=window),
            env=agent_env(),
            cwd=workspace,
            transport_kwargs={"stderr": stderr},
        ) as (conn, proc):
            await asyncio.wait_for(
                conn.initialize(protocol_version=1, client_capabilities=capabilities), WAIT
            )
            yield conn, proc, client


def cli(args: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=agent_env(),
        timeout=120,
    )
