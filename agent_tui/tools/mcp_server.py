"""One MCP server's connection: started as a stdio subprocess (in the sandbox when there is
one), its tools listed and offered as `McpTool`s, its calls made, its end noticed.

The server answers to a `ServerHost` (the `McpManager` in mcp.py) for its settings and to
publish or withdraw its tools, so this module does not import the manager.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agent_tui import __version__
from agent_tui.base.errors_text import one_line
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.env import passed_through
from agent_tui.tools.mcp_config import ServerConfig, tool_name

if TYPE_CHECKING:
    from agent_tui.tools.sandbox import Sandbox

log = logging.getLogger("agent_tui.tools.mcp")  # one logger for the MCP machinery


class ServerHost(Protocol):
    """What a server needs of the manager running it: settings, and where its tools and
    warnings go."""

    @property
    def workspace(self) -> Path: ...
    @property
    def startup_timeout(self) -> float: ...
    @property
    def log_dir(self) -> Path: ...
    @property
    def sandbox(self) -> Sandbox | None: ...
    @property
    def env_passthrough(self) -> tuple[str, ...]: ...
    @property
    def trusted_annotations(self) -> frozenset[str]: ...

    def _publish(self, server: McpServer) -> None: ...

    def _withdraw(self, server: McpServer) -> None: ...

    def _warn(self, message: str) -> None: ...


def describe_hints(hints: Any) -> str:
    """The annotations a server declares, in words (empty when none)."""
    if hints is None:
        return ""
    words = [
        word
        for flag, word in (
            ("read_only_hint", "read-only"),
            ("destructive_hint", "destructive"),
            ("idempotent_hint", "idempotent"),
            ("open_world_hint", "reaches outside"),
        )
        if getattr(hints, flag, None)
    ]
    return ", ".join(words)


def result_text(result: Any) -> tuple[str, bool]:
    """An MCP CallToolResult as (text, is_error); binary parts are described, not inlined."""
    parts: list[str] = []
    for block in result.content or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            size = len(block.data or "") * 3 // 4
            parts.append(f"[{kind} {block.mime_type}, {size} bytes: not shown]")
        elif kind == "resource":
            res = block.resource
            parts.append(getattr(res, "text", None) or f"[resource {res.uri}: binary, not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri} ({block.name})]")
    if result.structured_content is not None and not any(p.strip() for p in parts):
        parts.append(json.dumps(result.structured_content, indent=1, ensure_ascii=False))
    return "\n".join(parts), bool(result.is_error)


class McpTool:
    """One remote tool, as the registry sees it."""

    def __init__(self, server: McpServer, remote: Any) -> None:
        self.server = server
        self.remote = remote.name
        schema = dict(remote.input_schema or {})
        schema.setdefault("type", "object")
        hints = remote.annotations
        read_only = bool(hints is not None and hints.read_only_hint)
        # A server's word that a tool only reads is the server's, not ours: it skips approval
        # only when the user's own config trusts this server's annotations.
        trusted = server.config.name in server.manager.trusted_annotations
        self.spec = ToolSpec(
            name=tool_name(server.config.name, remote.name),
            description=(remote.description or remote.name).strip(),
            parameters=schema,
            mutates=not (read_only and trusted),
            source="mcp",
            hints=describe_hints(hints),
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self.server.call(self.remote, args, ctx.bash_timeout)


@asynccontextmanager
async def _watched(transport: Any, on_close: Callable[[], None]) -> AsyncIterator[Any]:
    """The transport's streams, with `on_close` called when the server's output ends."""
    async with transport as (read, write):
        yield _EndWatch(read, on_close), write


class _EndWatch:
    """A read stream that reports its end (the server exited or closed stdout)."""

    def __init__(self, inner: Any, on_close: Callable[[], None]) -> None:
        self.inner, self.on_close = inner, on_close

    def __getattr__(self, name: str) -> Any:  # receive, aclose, last_context: the inner's
        return getattr(self.inner, name)

    def __aiter__(self) -> _EndWatch:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.inner.__anext__()
        except Exception:  # StopAsyncIteration (EOF) or a broken pipe: either way, gone
            self.on_close()
            raise

    async def __aenter__(self) -> _EndWatch:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        self.on_close()
        return await self.inner.__aexit__(*exc)


def _reason(exc: BaseException) -> str:
    """One line for a startup failure (the SDK wraps errors in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    return one_line(exc, 200) or type(exc).__name__


ServerState = Literal["starting", "ready", "failed", "exited", "stopped"]
"""A server's life: starting until its tools are listed, then ready until it fails, its process
exits, or we stop it."""
ReportedState = Literal[ServerState, "not started"]
"""What `mcp list` and /tools show: a configured server the app has not launched is "not started"."""


class McpServer:
    """One server's connection and its `ServerState`."""

    def __init__(self, config: ServerConfig, manager: ServerHost) -> None:
        self.config = config
        self.manager = manager
        self.state: ServerState = "starting"
        self.error: str | None = None
        self.tools: list[McpTool] = []
        self.settled = asyncio.Event()
        """Set once the server is ready or has failed (what `McpManager.ready` waits for)."""
        self._stop = asyncio.Event()
        self._closed = asyncio.Event()
        self._client: Any = None
        self.task: asyncio.Task[None] | None = None
        self.sandboxed = False
        """Started inside the command sandbox (set when it starts)."""

    @property
    def log_path(self) -> Path:
        return self.manager.log_dir / f"{self.config.name}.log"

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"mcp:{self.config.name}")
        asyncio.get_running_loop().call_later(self.manager.startup_timeout, self._expired)

    def _expired(self) -> None:
        if self.state == "starting" and self.task is not None:
            self._fail(f"did not start within {self.manager.startup_timeout:g} s")
            self.task.cancel()

    def _fail(self, reason: str, state: ServerState = "failed") -> None:
        if self.state not in ("starting", "ready"):
            return
        had = len(self.tools)
        self.state, self.error = state, reason
        self.manager._withdraw(self)
        self.settled.set()
        gone = f"; its {had} tool{'s are' if had != 1 else ' is'} gone" if had else ""
        hint = ""
        if self.sandboxed and not reason.startswith("command not found"):
            hint = (
                f" It ran in the sandbox: if it needs the network or writes outside the workspace, "
                f"set network = true or sandbox = false in [mcp.servers.{self.config.name}]."
            )
        self.manager._warn(
            f"MCP server {self.config.name!r} {state}: {reason}{gone} (log: {self.log_path}).{hint}"
        )

    async def _run(self) -> None:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp_types import Implementation

        c = self.config
        cwd = c.cwd or str(self.manager.workspace)
        argv = [c.command, *c.args]
        sandbox = self.manager.sandbox
        self.sandboxed = sandbox is not None and sandbox.active and c.sandbox
        if sandbox is not None and self.sandboxed:
            # Resolved here so a missing command fails as "command not found", not inside bwrap.
            found = shutil.which(c.command, path=c.env.get("PATH", os.environ.get("PATH")))
            if found is None:
                self._fail(f"command not found: {c.command}")
                return
            argv = await asyncio.to_thread(sandbox.wrap, [found, *c.args], cwd=cwd, network=c.network)
        # The SDK hands on only a few safe variables (HOME, PATH…); [tools] env_passthrough adds
        # the ones the user named, and the server's own env table wins.

        env = {**passed_through(self.manager.env_passthrough), **c.env}
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
        errlog = self.log_path.open("a", encoding="utf-8")
        try:
            transport = _watched(stdio_client(params, errlog=errlog), self._closed.set)
            async with Client(
                transport, client_info=Implementation(name="agent-tui", version=__version__)
            ) as client:
                listed, cursor = [], None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    listed += page.tools
                    if not (cursor := page.next_cursor):
                        break
                if self.state != "starting":
                    return
                self._client = client
                self.tools = self._make_tools(listed)
                self.state = "ready"
                self.settled.set()
                self.manager._publish(self)
                stop = asyncio.create_task(self._stop.wait())
                closed = asyncio.create_task(self._closed.wait())
                await asyncio.wait({stop, closed}, return_when=asyncio.FIRST_COMPLETED)
                stop.cancel()
                closed.cancel()
                if not self._stop.is_set():
                    self._fail("the process ended unexpectedly", state="exited")
        except asyncio.CancelledError:
            if self.state != "ready" or self._stop.is_set():
                return  # our own startup timeout or stop, already reported
            raise
        except Exception as exc:
            log.debug("MCP server %s failed", c.name, exc_info=True)
            self._fail(_reason(exc), state="exited" if self.state == "ready" else "failed")
        finally:
            self._client = None
            if self.state in ("starting", "ready"):
                self.state = "stopped"
                self.manager._withdraw(self)
            self.settled.set()
            errlog.close()

    def _make_tools(self, listed: list[Any]) -> list[McpTool]:
        tools: dict[str, McpTool] = {}
        for remote in listed:
            tool = McpTool(self, remote)
            tools.setdefault(tool.spec.name, tool)  # two names equal once sanitised: keep one
        return list(tools.values())

    async def call(self, name: str, args: dict[str, Any], timeout: float) -> ToolOutput:
        client = self._client
        if self.state != "ready" or client is None:
            return ToolOutput.error(
                f"MCP server {self.config.name!r} is not running ({self.error or self.state})"
            )
        try:
            result = await asyncio.wait_for(client.call_tool(name, args), timeout)
        except TimeoutError:
            return ToolOutput.error(f"{self.config.name}: {name} did not answer within {timeout:g} s")
        except Exception as exc:  # noqa: BLE001 - MCPError, a dead pipe: the model reads it
            if self._closed.is_set():
                return ToolOutput.error(f"MCP server {self.config.name!r} exited during the call")
            return ToolOutput.error(f"{self.config.name}: {_reason(exc)}")
        text, is_error = result_text(result)
        if is_error:
            return ToolOutput(text=f"Error: {text}", is_error=True, summary="error")
        return ToolOutput(text=text, summary=f"{self.config.name}")

    async def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self.task is not None and not self.task.done():
            if self.state == "starting":
                self.task.cancel()  # still connecting: nothing to wind down politely
            done, _ = await asyncio.wait({self.task}, timeout=timeout)
            if not done:
                self.task.cancel()
