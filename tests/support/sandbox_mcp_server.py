"""A tiny stdio MCP server for the sandbox tests: one tool that tries to write a file."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("probe")


@server.tool()
def write(path: str) -> str:
    """Write `probe` to `path`; returns `ok` or the error."""
    try:
        Path(path).write_text("probe")
    except OSError as exc:
        return f"failed: {exc}"
    return "ok"


if __name__ == "__main__":
    print("probe server starting", file=sys.stderr)
    server.run("stdio")
