"""MCP servers: started in the background at launch, their tools registered as `NAME__tool`.

Each `[mcp.servers.NAME]` (command, args, env, cwd) runs as a stdio subprocess under the `mcp`
SDK's Client, in a task of its own (the SDK's cancel scopes must be entered and left by one
task). A server that fails to start within `mcp.startup_timeout`, fails outright or dies later is
a warning — its tools leave every session's registry and the other servers keep working. MCP
tool calls go through the normal ToolRunner path (source "mcp", not paged), so a big result is
stored whole and the model sees a view with a ref like any other tool's output.

Warnings are appended to `McpManager.notices`, a list each session reads from where it left
off (`PromptAssembler.notice_feed`), so every session hears of a server's death once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import weakref
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_tui import paths
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from agent_tui.tokens import TokenCounter
    from agent_tui.tools.registry import ToolRegistry
    from agent_tui.tools.sandbox import Sandbox

log = logging.getLogger(__name__)

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_KEYS = {"command", "args", "env", "cwd", "enabled", "sandbox", "network"}
MAX_TOOL_NAME = 64  # OpenAI's limit for function names (Anthropic allows more)


@dataclass(frozen=True)
class ServerConfig:
    """One `[mcp.servers.NAME]` table."""

    name: str
    """The table's NAME: the prefix of its tools' names."""
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables set for the server, over the SDK's safe defaults (HOME, PATH, …)."""
    cwd: str | None = None
    """Working directory; default the workspace."""
    sandbox: bool = True
    """Runs inside the command sandbox when there is one; `sandbox = false` trusts it to run outside."""
    network: bool = False
    """Inside the sandbox, may use the network (a server that needs it says so)."""


def parse_servers(table: Mapping[str, Any]) -> tuple[list[ServerConfig], list[str]]:
    """The enabled servers, and one line per malformed table (those servers are skipped)."""
    servers, problems = [], []
    for name, raw in table.items():
        where = f"[mcp.servers.{name}]"
        if not isinstance(raw, Mapping):
            problems.append(f"{where} must be a table with command, args, env")
            continue
        unknown = sorted(set(raw) - _KEYS)
        args, env = raw.get("args", []), raw.get("env", {})
        if not _NAME.match(name):
            problems.append(f"{where}: a server name may hold only letters, digits, _ and -")
        elif unknown:
            problems.append(f"{where}: unknown key {unknown[0]} (known: {', '.join(sorted(_KEYS))})")
        elif not isinstance(raw.get("command"), str) or not raw["command"].strip():
            problems.append(f'{where}: command must be a string, e.g. command = "uvx"')
        elif not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            problems.append(f"{where}: args must be a list of strings")
        elif not isinstance(env, Mapping):
            problems.append(f"{where}: env must be a table of strings")
        elif not all(isinstance(raw.get(k, True), bool) for k in ("sandbox", "network", "enabled")):
            problems.append(f"{where}: enabled, sandbox and network must be true or false")
        elif raw.get("enabled", True):
            servers.append(
                ServerConfig(
                    name,
                    raw["command"],
                    tuple(args),
                    {str(k): str(v) for k, v in env.items()},
                    raw.get("cwd"),
                    sandbox=raw.get("sandbox", True),
                    network=raw.get("network", False),
                )
            )
    return servers, problems


def tool_name(server: str, tool: str) -> str:
    """`server__tool`, with characters providers refuse replaced by `_`."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}__{tool}")[:MAX_TOOL_NAME]


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
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


ServerState = Literal["starting", "ready", "failed", "exited", "stopped"]
"""A server's life: starting until its tools are listed, then ready until it fails, its process
exits, or we stop it."""
ReportedState = Literal[ServerState, "not started"]
"""What `mcp list` and /tools show: a configured server the app has not launched is "not started"."""


class McpServer:
    """One server's connection and its `ServerState`."""

    def __init__(self, config: ServerConfig, manager: McpManager) -> None:
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

        from agent_tui import __version__

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
        from agent_tui.tools.env import passed_through

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


@dataclass(frozen=True)
class ToolReport:
    name: str
    """`server__tool`, as the model sees it."""
    tokens: int
    """What the tool's schema costs in a request that offers it."""
    description: str


@dataclass(frozen=True)
class ServerReport:
    """One server for `agent-tui mcp list` and the TUI's /tools view."""

    name: str
    state: ReportedState
    error: str | None
    command: str
    tools: tuple[ToolReport, ...]

    @property
    def tokens(self) -> int:
        return sum(t.tokens for t in self.tools)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "tokens": self.tokens}


class McpManager:
    """Every configured server of one app, and the registries their tools go into."""

    def __init__(
        self,
        servers: list[ServerConfig],
        *,
        workspace: Path,
        startup_timeout: float = 20.0,
        problems: Sequence[str] = (),
        log_dir: Path | None = None,
        sandbox: Sandbox | None = None,
        trusted_annotations: Sequence[str] = (),
        env_passthrough: Sequence[str] = (),
    ) -> None:
        self.configs = servers
        self.sandbox = sandbox
        self.env_passthrough = tuple(env_passthrough)
        self.trusted_annotations = frozenset(trusted_annotations)
        """Servers whose readOnlyHint may skip approval ([mcp] trust_annotations, user config)."""
        self.workspace = workspace
        self.startup_timeout = startup_timeout
        self.log_dir = log_dir or paths.state_dir() / "mcp"
        self.notices: list[str] = []
        """Warnings, oldest first; sessions read the ones they have not seen."""
        self.servers: dict[str, McpServer] = {}
        self._registries: weakref.WeakSet[ToolRegistry] = weakref.WeakSet()
        for problem in problems:
            self._warn(f"MCP config: {problem}")

    @classmethod
    def from_config(cls, config: Any, workspace: Path, sandbox: Sandbox | None = None) -> McpManager:
        servers, problems = parse_servers(config.mcp.servers)
        return cls(
            servers,
            workspace=workspace,
            startup_timeout=config.mcp.startup_timeout,
            problems=problems,
            sandbox=sandbox,
            trusted_annotations=config.mcp.trust_annotations,
            env_passthrough=config.tools.env_passthrough,
        )

    def start(self) -> None:
        """Launch every server in the background (idempotent); returns at once."""
        if self.servers or not self.configs:
            return
        paths.ensure_private_dir(self.log_dir)
        for config in self.configs:
            server = self.servers[config.name] = McpServer(config, self)
            server.start()

    async def ready(self) -> None:
        """Wait until every server is ready or has failed (at most the startup timeout)."""
        await asyncio.gather(*(s.settled.wait() for s in self.servers.values()))

    def tools(self) -> list[McpTool]:
        return [t for s in self.servers.values() if s.state == "ready" for t in s.tools]

    def attach(self, registry: ToolRegistry) -> None:
        """Register the live tools in `registry` and keep it current as servers come and go."""
        self._registries.add(registry)
        for tool in self.tools():
            registry.register(tool)

    def _publish(self, server: McpServer) -> None:
        for registry in list(self._registries):
            for tool in server.tools:
                registry.register(tool)

    def _withdraw(self, server: McpServer) -> None:
        for registry in list(self._registries):
            for tool in server.tools:
                if registry.get(tool.spec.name) is tool:
                    registry.unregister(tool.spec.name)

    def _warn(self, message: str) -> None:
        log.warning("%s", message)
        self.notices.append(message)

    def describe(self, counter: TokenCounter) -> list[ServerReport]:
        """Servers with their tools and what each tool's description costs in tokens."""
        out = []
        for config in self.configs:
            server = self.servers.get(config.name)
            tools = tuple(
                ToolReport(
                    t.spec.name,
                    counter.count_tool_schema(t.spec.schema()),
                    t.spec.description.split("\n", 1)[0],
                )
                for t in (server.tools if server and server.state == "ready" else ())
            )
            out.append(
                ServerReport(
                    config.name,
                    server.state if server else "not started",
                    server.error if server else None,
                    " ".join([config.command, *config.args]),
                    tools,
                )
            )
        return out

    async def stop(self) -> None:
        await asyncio.gather(*(s.stop() for s in self.servers.values()))
