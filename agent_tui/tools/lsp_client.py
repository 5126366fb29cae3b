"""A small Language Server Protocol client over stdio: enough to open a file, change it and hear
the diagnostics the server publishes for it.

Why our own and not a library: the maintained Python LSP libraries (pygls, lsprotocol) are
server-side frameworks with a large typed protocol model, and multilspy downloads servers; we
need four messages (initialize, didOpen/didChange, publishDiagnostics, shutdown) over JSON-RPC
framed by `Content-Length`, with every wait bounded. A server that crashes, hangs or never
answers costs at most the timeout and is then left stopped; the edit itself is never held up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


@dataclass(frozen=True)
class Diagnostic:
    line: int
    """1-based, as the model reads numbered files."""
    column: int
    severity: str
    message: str
    code: str = ""
    source: str = ""

    def describe(self, path: str) -> str:
        code = f" [{self.code}]" if self.code else ""
        return f"{path}:{self.line}:{self.column}: {self.severity}{code}: {self.message}"


class LspClient:
    """One running language server for one workspace."""

    def __init__(
        self,
        command: list[str],
        root: Path,
        language: str,
        *,
        watch_parent: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        self.command = command
        self.env = env
        """The server's environment (None: ours)."""
        self.root = root
        self.language = language
        self.watch_parent = watch_parent
        """Tell the server our pid to watch; not from inside a sandbox's own pid namespace,
        where that pid is nobody's and a server would take us for gone."""
        self.proc: asyncio.subprocess.Process | None = None
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._published: dict[str, list[dict[str, Any]]] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self._versions: dict[str, int] = {}
        self._reader: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def start(self, timeout: float) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.command,
            cwd=self.root,
            env=self.env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        self._reader = asyncio.create_task(self._read(), name=f"lsp-{self.language}")
        root = self.root.as_uri()
        params = {
            "processId": os.getpid() if self.watch_parent else None,
            "rootUri": root,
            "workspaceFolders": [{"uri": root, "name": self.root.name}],
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        }
        await asyncio.wait_for(self._request("initialize", params), timeout)
        await self._notify("initialized", {})

    async def diagnostics(self, path: Path, text: str, timeout: float) -> list[Diagnostic]:
        """Send the file's new text and wait (at most `timeout`) for the server's diagnostics."""
        uri = path.resolve().as_uri()
        event = self._changed.setdefault(uri, asyncio.Event())
        event.clear()
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        if version == 1:
            item = {"uri": uri, "languageId": self.language, "version": version, "text": text}
            await self._notify("textDocument/didOpen", {"textDocument": item})
        else:
            await self._notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
            )
        await asyncio.wait_for(event.wait(), timeout)
        return [_diagnostic(raw) for raw in self._published.get(uri, [])]

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(Exception):
            self.proc = proc
            await asyncio.wait_for(self._request("shutdown", None), 1.0)
            await self._notify("exit", None)
            await asyncio.wait_for(proc.wait(), 1.0)
        self.proc = None
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader

    # -- JSON-RPC over stdio ------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self.proc.stdin.drain()

    async def _notify(self, method: str, params: Any) -> None:
        await self._send({"method": method, "params": params})

    async def _request(self, method: str, params: Any) -> Any:
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        await self._send({"id": self._next_id, "method": method, "params": params})
        return await future

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stream = self.proc.stdout
        try:
            while True:
                length = 0
                while (line := await stream.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if not line or not length:
                    return
                self._handle(json.loads(await stream.readexactly(length)))
        except (asyncio.IncompleteReadError, ValueError, OSError):
            log.info("language server %s stopped talking", self.command[0])
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError(f"{self.command[0]} exited"))

    def _handle(self, message: dict[str, Any]) -> None:
        if "id" in message and "method" in message:  # a request from the server: answer empty
            asyncio.get_running_loop().create_task(self._send({"id": message["id"], "result": None}))
        elif "id" in message:
            future = self._pending.pop(message["id"], None)
            if future is not None and not future.done():
                future.set_result(message.get("result"))
        elif message.get("method") == "textDocument/publishDiagnostics":
            params = message.get("params") or {}
            uri = str(params.get("uri", ""))
            if "version" in params and params["version"] != self._versions.get(uri):
                return  # about an older text
            self._published[uri] = list(params.get("diagnostics") or [])
            self._changed.setdefault(uri, asyncio.Event()).set()


def _diagnostic(raw: dict[str, Any]) -> Diagnostic:
    start = (raw.get("range") or {}).get("start") or {}
    code = raw.get("code")
    return Diagnostic(
        line=int(start.get("line", 0)) + 1,
        column=int(start.get("character", 0)) + 1,
        severity=SEVERITY.get(int(raw.get("severity") or 1), "error"),
        message=" ".join(str(raw.get("message", "")).split()),  # one line: "…  help: …" folded
        code="" if code is None else str(code),
        source=str(raw.get("source") or ""),
    )
