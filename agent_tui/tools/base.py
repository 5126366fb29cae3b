"""What a tool is: a spec the model sees, and an async `run` that never raises at the loop.

Tools return `ToolOutput`. A small output is plain text; a tool whose output can be huge (bash)
streams it into the blob store itself through `ToolContext.offload` and returns the ref, so the
whole output is never held in memory. The loop stores every other output whole and decides what
the model sees (a view for non-paged tools, the page for paged ones).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agent_tui.base.tool_decl import Capabilities, declare
from agent_tui.base.visible_text import visible
from agent_tui.context.side_state import SideState

if TYPE_CHECKING:
    from agent_tui.base.messages import ResultRef
    from agent_tui.store import Store
    from agent_tui.tools.process_group import Launch
    from agent_tui.tools.sandbox import Sandbox

Source = Literal["builtin", "context", "mcp", "skill", "agent"]


@dataclass(frozen=True)
class ToolSpec:
    """What the model sees of a tool, plus how the loop treats it."""

    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments object."""
    mutates: bool = False
    """Changes files or runs commands: asks the approver first."""
    paged: bool = False
    """Returns a page of at most max_message_bytes and says how to page on (read_file,
    read_result); other tools' outputs are offloaded past the threshold."""
    source: Source = "builtin"
    """mcp, skill and agent (`task`) tools may be deferred; builtin and context ones only when
    `rarely_needed` and the window is small (context/deferral.py)."""
    hints: str = ""
    """What an MCP server declares about the tool (`read-only`…): shown when asking, never obeyed
    unless the user's config trusts that server's annotations."""
    brief: str = ""
    """One sentence the model sees instead of `description` when the tools must shrink to fit a
    small window (context/deferral.py); the parameters then go without their descriptions."""
    rarely_needed: bool = False
    """A turn seldom needs it: in a small window it waits behind tool_search, like MCP tools."""
    capabilities: Capabilities | None = None
    """What the tool declares about itself (tool_decl.py); every built-in and context tool has
    one (tests/test_tool_declarations.py), MCP tools have none."""

    def __post_init__(self) -> None:
        if self.capabilities is not None:
            declare(self.name, self.capabilities)

    @property
    def kind(self) -> str:
        """ACP's tool kind: declared, else `other`."""
        return self.capabilities.kind if self.capabilities is not None else "other"

    def schema(self) -> dict[str, Any]:
        """The OpenAI `tools` entry. Built once per spec so token counts cache by identity."""
        cached = self.__dict__.get("_schema")
        if cached is None:
            cached = {
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.description,
                    "parameters": self.parameters,
                },
            }
            object.__setattr__(self, "_schema", cached)
        return cached

    def brief_schema(self) -> dict[str, Any]:
        """The `tools` entry for a small window: the brief sentence and bare parameters (names,
        types, enums and what is required stay). The full schema when no brief is declared."""
        if not self.brief:
            return self.schema()
        cached = self.__dict__.get("_brief_schema")
        if cached is None:
            cached = {
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.brief,
                    "parameters": _bare(self.parameters),
                },
            }
            object.__setattr__(self, "_brief_schema", cached)
        return cached


def _bare(schema: Any) -> Any:
    """A JSON schema without its `description`s (nested ones too); the rest is kept."""
    if isinstance(schema, dict):
        return {k: _bare(v) for k, v in schema.items() if not (k == "description" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_bare(item) for item in schema]
    return schema


@dataclass
class ToolOutput:
    """A tool's result as the loop receives it."""

    text: str = ""
    """The output (for a paged tool: the page). Empty when `ref` already holds it."""
    is_error: bool = False
    ref: ResultRef | None = None
    """Set when the tool already stored its whole output (streamed bash output)."""
    summary: str = ""
    """Short status for the folded line: `exit 1 · 2.1 s`."""
    meta: dict[str, Any] = field(default_factory=dict)
    """exit_code, path, lines… (shown by the UI, used by compaction's pruning)."""

    @classmethod
    def error(cls, message: str, **meta: Any) -> ToolOutput:
        return cls(text=f"Error: {message}", is_error=True, summary="error", meta=meta)


Offload = Callable[[str, "str | bytes | AsyncIterator[bytes]"], Awaitable["ResultRef"]]
"""`offload(tool_name, content)` stores content whole in the blob store and returns its ref."""


class ToolFinder(Protocol):
    """Ranks the deferred tools for a query and offers the matches for the next step."""

    def search_tools(self, query: str, limit: int = 5) -> list[ToolSpec]: ...


class ProjectGate(Protocol):
    """Whether this session may read another project's stored outputs (asks once per project)."""

    async def allow_project(self, project: str, tool_name: str) -> bool: ...


class CommandEnv(Protocol):
    """The environment commands get, and a one-time note on what was withheld (tools/env.py)."""

    def build(self) -> tuple[dict[str, str], str | None]: ...


class Shells(Protocol):
    """The session's background commands as the tools use them (tools/background.py's
    BackgroundShells), named here so the tools' base does not import the registry built on bash."""

    async def start(
        self, command: str, ctx: ToolContext, launch_command: Callable[[], Awaitable[Launch]]
    ) -> ToolOutput: ...

    async def foreground(self, handover: asyncio.Event) -> None: ...

    async def adopted(
        self, command: str, launch: Launch, ctx: ToolContext, started: float, ref: Any, text: str, total: int
    ) -> ToolOutput: ...

    async def output(self, shell_id: str, wait: float = 0.0) -> ToolOutput: ...

    async def kill(self, shell_id: str) -> ToolOutput: ...


@dataclass(frozen=True)
class ToolServices:
    """The session's shared parts the context tools use; None where the session has none."""

    store: Store | None = None
    """Where read_result, grep_result and recall read stored outputs and transcripts."""
    tools: ToolFinder | None = None
    """What tool_search asks (the session's PromptAssembler, which owns deferral)."""
    sandbox: Sandbox | None = None
    """The command sandbox bash wraps its command in (tools/sandbox.py); None = no sandbox."""
    projects: ProjectGate | None = None
    """Asks before another project's outputs are read (the session's PermissionPolicy); None =
    no session, nothing to ask."""
    recall_scope: str = "project"
    """`all` (the user's config): other projects' outputs without asking."""
    env: CommandEnv | None = None
    """The session's scrubbed environment for bash; None = scrub without a note."""
    agents: Any = None
    """The session's sub-agent manager (agent/subagents.py Subagents); None = no `task` tool."""
    shells: Shells | None = None
    """The session's background commands (tools/background.py); None = none can start."""
    side: SideState = field(default_factory=SideState)
    """The session's task list and pins, kept beside the conversation (context/side_state.py)."""
    web: Any = None
    """`[web]` settings for web_fetch (config WebSettings); None = the defaults."""
    diagnostics: Any = None
    """The session's language servers (tools/diagnostics.py LanguageServers); None = none."""
    page_reader: Any = None
    """The summary model (agent/summarizer.py ProviderSummarizer) web_fetch asks a question of a
    large page; None = the page alone is returned."""


@dataclass
class ToolContext:
    """What a running tool may touch."""

    workspace: Path
    """Resolved root the file tools are confined to; bash runs here."""
    session_id: str
    call_id: str
    offload: Offload | None = None
    """Stores a (streamed) output whole; None when the store is down (then keep text inline)."""
    max_message_bytes: int = 51200
    max_line_length: int = 2000
    bash_timeout: float = 120.0
    search_timeout: float = 5.0
    """Seconds one grep may spend on regex work ([tools] search_timeout)."""
    max_output_bytes: int = 256 << 20
    """Bytes one command may print before its process group is killed ([tools] max_output_bytes)."""
    services: ToolServices = field(default_factory=ToolServices)
    """The shared parts the context tools use (store, tool search)."""


class Tool(Protocol):
    spec: ToolSpec

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput: ...


HEADLINE_ARGUMENTS = ("command", "path", "description", "pattern", "query", "url", "ref_id")
"""The argument a call's line shows alone when the call has it (Claude Code's `Update(cart.py)`,
`Task(find the bug)`): edit_file's line read `path=a.py old_string=… new_string=…`."""


def short_arguments(arguments: str, limit: int = 60) -> str:
    """The arguments as one short line for folded tool lines and approval prompts."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        text = arguments
    else:
        if isinstance(value, dict):
            headline = next((value[k] for k in HEADLINE_ARGUMENTS if isinstance(value.get(k), str)), None)
            first = next(iter(value.values()), "") if len(value) == 1 else headline
            text = str(first) if first is not None else " ".join(f"{k}={v}" for k, v in value.items())
        else:
            text = str(value)
    # Blank runs fold to a space, line breaks to one `⏎`, and every control character shows
    # (visible_text.py): the line must not read `ls -la` when the call is `touch x; ESC[2K ls -la`.
    text = re.sub(r"[ \t]*(?:\r?\n[ \t]*)+", "\n", text.strip())
    text = visible(re.sub(r"[ \t]+", " ", text), one_line=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"
