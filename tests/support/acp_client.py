"""Test support for `agent-tui acp`: the ACP Python SDK's client side against our subprocess.

`RecordingClient` is an editor as a test needs one: it records every `session/update` in arrival
order and answers permission requests from a script. `open_agent` starts `python -m agent_tui
acp` (our tree first on PYTHONPATH) against the local fake OpenAI server.
"""

from __future__ import annotations

import asyncio
import os
import signal
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
        self.terminals = ClientTerminals()
        """The client's side of `terminal/*`: real processes the client starts and owns."""
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

    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        env: list[s.EnvVariable] | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> s.CreateTerminalResponse:
        terminal_id = await self.terminals.create(command, args or [], cwd, env or [], output_byte_limit)
        async with self._changed:
            self._changed.notify_all()
        return s.CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> s.TerminalOutputResponse:
        return self.terminals.get(terminal_id).output()

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> s.WaitForTerminalExitResponse:
        status = await self.terminals.get(terminal_id).wait()
        return s.WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        self.terminals.calls.append(("kill", terminal_id))
        self.terminals.get(terminal_id).kill()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        self.terminals.calls.append(("release", terminal_id))
        self.terminals.release(terminal_id)

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


def sessions_list(db: Path, cwd: Path) -> str:
    """What `agent-tui sessions list` prints for the database."""
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", "sessions", "list", "--db", str(db)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=agent_env(),
        timeout=120,
    ).stdout


@asynccontextmanager
async def open_session(
    server: FakeOpenAI,
    db: Path,
    workspace: Path,
    *extra: str,
    capabilities: s.ClientCapabilities | None = None,
) -> AsyncIterator[tuple[Any, RecordingClient, str]]:
    """`open_agent`, then `session/new` in the workspace: (connection, client, session id)."""
    async with open_agent(server, db, workspace, *extra, capabilities=capabilities) as (conn, _proc, client):
        new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
        yield conn, client, new.session_id


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


class ClientTerminal:
    """One command the client runs for the agent, as an editor does: its own process group,
    stdout and stderr in one buffer that keeps the last `limit` bytes."""

    def __init__(self, proc: asyncio.subprocess.Process, limit: int | None) -> None:
        self.proc = proc
        self.limit = limit
        self.buffer = bytearray()
        self.truncated = False
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := await self.proc.stdout.read(65536):
            self.buffer += chunk
            if self.limit is not None and len(self.buffer) > self.limit:
                del self.buffer[: len(self.buffer) - self.limit]
                self.truncated = True

    def status(self) -> s.TerminalExitStatus | None:
        code = self.proc.returncode
        if code is None:
            return None
        if code < 0:
            return s.TerminalExitStatus(exit_code=None, signal=signal.Signals(-code).name)
        return s.TerminalExitStatus(exit_code=code, signal=None)

    def output(self) -> s.TerminalOutputResponse:
        return s.TerminalOutputResponse(
            output=self.buffer.decode("utf-8", "replace"), truncated=self.truncated, exit_status=self.status()
        )

    async def wait(self) -> s.TerminalExitStatus:
        await self.proc.wait()
        await self.reader
        status = self.status()
        assert status is not None
        return status

    def kill(self) -> None:
        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class ClientTerminals:
    """Every terminal the agent asked this client for, with what it asked."""

    def __init__(self) -> None:
        self.live: dict[str, ClientTerminal] = {}
        self.requests: list[dict[str, Any]] = []
        """command, args, cwd, env, limit and the pid of every `terminal/create`, in order."""
        self.calls: list[tuple[str, str]] = []
        """("kill" | "release", terminal id), in order."""
        self.released: dict[str, ClientTerminal] = {}
        """Released terminals, so a test can wait for their process to be reaped."""

    async def create(
        self, command: str, args: list[str], cwd: str | None, env: list[s.EnvVariable], limit: int | None
    ) -> str:
        extra = {v.name: v.value for v in env}
        proc = await asyncio.create_subprocess_exec(
            command,
            *args,
            cwd=cwd,
            env={**os.environ, **extra},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        terminal_id = f"term-{len(self.requests) + 1}"
        self.live[terminal_id] = ClientTerminal(proc, limit)
        self.requests.append(
            {
                "id": terminal_id,
                "command": command,
                "args": args,
                "cwd": cwd,
                "env": extra,
                "limit": limit,
                "pid": proc.pid,
            }
        )
        return terminal_id

    def get(self, terminal_id: str) -> ClientTerminal:
        return self.live[terminal_id]

    def release(self, terminal_id: str) -> None:
        terminal = self.live.pop(terminal_id)
        terminal.kill()
        self.released[terminal_id] = terminal

    async def reaped(self, terminal_id: str) -> None:
        """Return once a released terminal's process has been waited for (no zombie left)."""
        await self.released[terminal_id].proc.wait()


def cli(args: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=agent_env(),
        timeout=120,
    )
