"""MCP servers: started in the background at launch, their tools registered as `NAME__tool`.

Each `[mcp.servers.NAME]` (command, args, env, cwd) runs as a stdio subprocess under the `mcp`
SDK's Client, in a task of its own (the SDK's cancel scopes must be entered and left by one
task). A server that fails to start within `mcp.startup_timeout`, fails outright or dies later is
a warning — its tools leave every session's registry and the other servers keep working. MCP
tool calls go through the normal ToolRunner path (source "mcp", not paged), so a big result is
stored whole and the model sees a view with a ref like any other tool's output.

Warnings are appended to `McpManager.notices`, a list each session reads from where it left
off (`PromptAssembler.notice_feed`), so every session hears of a server's death once.

The tables are read in mcp_config.py and one server's connection lives in mcp_server.py; this
module holds the manager of them all, and callers import every MCP name from here.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.runtime import paths
from agent_tui.tools.mcp_config import MAX_TOOL_NAME, ServerConfig, parse_servers, tool_name
from agent_tui.tools.mcp_server import (
    McpServer,
    McpTool,
    ReportedState,
    ServerState,
    describe_hints,
    result_text,
)

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter
    from agent_tui.tools.registry import ToolRegistry
    from agent_tui.tools.sandbox import Sandbox

log = logging.getLogger(__name__)

# What callers import from here (the manager's module is the package's MCP entry point).
__all__ = [
    "MAX_TOOL_NAME",
    "McpManager",
    "McpServer",
    "McpTool",
    "ReportedState",
    "ServerConfig",
    "ServerReport",
    "ServerState",
    "ToolReport",
    "describe_hints",
    "parse_servers",
    "result_text",
    "tool_name",
]


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
