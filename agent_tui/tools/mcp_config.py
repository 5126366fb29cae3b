"""`[mcp.servers.NAME]` tables read into `ServerConfig`s, and the names their tools get.

Kept apart from the running servers (mcp_server.py) so the config checks and `mcp list` can read
the tables without the connection machinery.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
