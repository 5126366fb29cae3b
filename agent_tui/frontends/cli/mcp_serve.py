"""`agent-tui mcp serve`: the store offered to other agents as a stdio MCP server.

The tools are the four reads of store/archive.py and nothing else — no tool writes, runs a
command or reaches past the database — so whatever a client's model is talked into, the worst it
can do is read what the scope shows. The MCP SDK loads only here, when the user asks to serve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui import __version__
from agent_tui.store.archive import Archive, ArchiveError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVED_TOOLS = ("recall", "read_result", "grep_result", "sessions")
"""Every tool the server offers; tests/test_mcp_serve.py checks a client sees exactly these."""

REF_HELP = (
    "a ctx:// URI from recall or sessions (ctx://<project>/<session>/r_…, …/messages:<a>-<b>), "
    "a ref id r_…, or a session range s_<session>/m_<a>-<b>"
)


def build_server(archive: Archive) -> MCPServer[Any]:
    """An MCP server whose tools answer from `archive`, each marked read-only."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    server: MCPServer[Any] = MCPServer(
        "agent-tui-archive",
        version=__version__,
        instructions=(
            "Read-only access to agent-tui's stored sessions and tool outputs for "
            f"{archive.scope.describe()}: search with recall, then read or grep a hit by its handle."
        ),
    )
    reads = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

    async def answer(work: Any) -> str:
        try:
            return str(await work)
        except ArchiveError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(annotations=reads)
    async def recall(
        query: str | None = None, queries: list[str] | None = None, source: str = "all", limit: int = 10
    ) -> str:
        """Search what agent-tui sessions said and what their tools returned (full-text, ranked).
        Give `query`, or several phrasings in `queries`. `source`: all, conversation or outputs.
        Each hit names a handle that read_result and grep_result accept."""
        return await answer(archive.recall([query or "", *(queries or [])], source, limit))

    @server.tool(annotations=reads)
    async def read_result(ref_id: str, offset: int | None = None, limit: int | None = None) -> str:
        """Numbered lines of a stored tool output, or numbered messages of a transcript range.
        `ref_id`: a handle from recall or sessions. `offset` is 1-based; `limit` defaults to 200."""
        return await answer(archive.read(ref_id, offset, limit))

    @server.tool(annotations=reads)
    async def grep_result(ref_id: str, pattern: str, context: int = 0) -> str:
        """Lines of a stored output (or transcript range) matching a Python regular expression,
        with their numbers and `context` lines around each."""
        return await answer(archive.grep(ref_id, pattern, context))

    @server.tool(annotations=reads)
    async def sessions(limit: int = 20) -> str:
        """The newest stored sessions: id, title, message count, and the range that reads each."""
        return await answer(archive.sessions(limit))

    return server


async def serve_stdio(archive: Archive) -> None:
    """Answer one client on stdin/stdout until it goes away."""
    await build_server(archive).run_stdio_async()
