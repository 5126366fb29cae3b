"""Building a real bwrap sandbox, running `bash` in it, and a host-side listener it must not reach."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

from agent_tui.tools.base import ToolContext, ToolServices
from agent_tui.tools.bash import BashTool
from agent_tui.tools.sandbox import Probe, Sandbox
from testkit.fake_openai import Reply


def make_sandbox(ws: Path, found: Probe, mode: str = "workspace-write", **kw) -> Sandbox:
    return Sandbox(mode, workspace=ws, probe=found, **kw)


async def bash(sandbox: Sandbox, command: str, **args):
    ctx = ToolContext(
        workspace=sandbox.workspace, session_id="s", call_id="c", services=ToolServices(sandbox=sandbox)
    )
    return await BashTool(kill_grace=1.0).run({"command": command, **args}, ctx)


class Listener:
    """A local TCP server counting the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def connect_command(self) -> str:
        return f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {self.port}), timeout=5)\""


GIT_ENV = (
    "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com"
)


def rerun_model(target: Path):
    """Writes outside the workspace; when told the sandbox blocked it, asks to rerun unsandboxed."""
    command = f"echo done > {target}"

    def respond(body: dict) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user":
            return Reply(tool_calls=[("bash", {"command": command})])
        if last["role"] == "tool" and "unsandboxed: true" in last["content"]:
            return Reply(tool_calls=[("bash", {"command": command, "unsandboxed": True})])
        return Reply(text="finished")

    return respond
