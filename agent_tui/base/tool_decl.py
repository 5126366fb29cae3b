"""What a tool declares about itself, so nothing else keeps a table of tool names.

Every built-in tool's spec carries `Capabilities`: what kind of tool it is (what an editor's tool
card and compaction's one-line labels call it), which arguments are paths, the names Claude Code
gives it (hooks and agent files from `.claude/`), whether it is time-limited, checkpointed for
`/undo`, how an approval previews it, whether its output is stored. The ACP translation, hooks,
undo, the approval preview, the prompt prose and compaction read these declarations instead of
spelling tool names; tests/test_tool_declarations.py fails when a built-in leaves one out.

Plain data (no layer imported), because `context/` and the settings readers (hooks, agent
definitions) need the declarations too and may not import `tools/`. A spec declares itself here
when it is built (tools/base.py), so importing a tool's module is enough for its names to be known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

ToolKind = Literal["read", "edit", "execute", "search", "fetch", "think", "other"]
"""What the tool does, in the Agent Client Protocol's words (an editor picks the card's icon)."""

Preview = Literal["arguments", "command", "write", "edit"]
"""What an approval shows: the arguments, the command line, or the diff a write or edit applies."""


@dataclass(frozen=True)
class Capabilities:
    """How the rest of agent-tui treats one tool, declared by the tool."""

    kind: ToolKind
    """ACP's tool kind; compaction labels `read` calls `Viewed…`, `execute` `Ran:…`, `edit`
    `Edited…`, `search` `Searched:…`."""
    path_args: tuple[str, ...] = ()
    """Arguments that name a workspace path (an editor's location, a hook's absolute `file_path`)."""
    claude_names: tuple[str, ...] = ()
    """Claude Code's names for the tool, the first being what a `.claude/` hook's stdin says."""
    time_limited: bool = False
    """Only touches files: stopped after the registry's time limit (a FIFO, a hung mount)."""
    checkpointed: bool = False
    """Changes a file named by its path argument: checkpointed for `/undo`, checked against the
    protected paths and the sandbox's write rules, and shown to an editor as a diff."""
    preview: Preview = "arguments"
    stored: bool = True
    """Its output goes to the blob store; False for tools that read the store already."""
    reads_session: bool = False
    """Only looks up what this session already holds (its stored outputs, its transcript, its
    tool list) and changes nothing: a sub-agent narrowed to a definition's tools keeps it, and
    recall does not index its calls (their arguments only repeat a search)."""
    prose: str = ""
    """A sentence for the base prompt about how to use it well (empty: nothing to add)."""


_declared: dict[str, Capabilities] = {}


def declare(name: str, capabilities: Capabilities) -> None:
    """Record a tool's declaration (done by its spec; a later one under the same name wins)."""
    _declared[name] = capabilities


def declared(name: str) -> Capabilities | None:
    """The declaration of the tool called `name`, or None (an MCP or unknown tool)."""
    return _declared.get(name)


def claude_names(tool: str) -> tuple[str, ...]:
    """How Claude Code would call our tool: its declared names; an MCP tool (ours:
    `server__tool`) is `mcp__server__tool` there; any other keeps its own name."""
    found = _declared.get(tool)
    if found is not None and found.claude_names:
        return found.claude_names
    return (f"mcp__{tool}",) if "__" in tool else (tool,)


def from_claude_name(word: str) -> str | None:
    """Our tool that Claude Code calls `word` (case-insensitive), or None."""
    wanted = word.strip().lower()
    for name, capabilities in _declared.items():
        if any(alias.lower() == wanted for alias in capabilities.claude_names):
            return name
    return None


def reads_session(name: str) -> bool:
    """Whether the tool only looks up the session's own state (see `Capabilities.reads_session`)."""
    found = _declared.get(name)
    return found is not None and found.reads_session


def session_lookups() -> frozenset[str]:
    """Every declared tool that only looks up the session (recall leaves their calls unindexed)."""
    return frozenset(name for name, capabilities in _declared.items() if capabilities.reads_session)


def checkpointed(name: str) -> bool:
    """Whether the tool changes the file its path argument names (see `Capabilities.checkpointed`)."""
    found = _declared.get(name)
    return found is not None and found.checkpointed


def path_of(name: str, args: Mapping[str, object]) -> object:
    """The value of the tool's first declared path argument (`path` for an undeclared tool), or
    None when the call has none."""
    found = _declared.get(name)
    keys = found.path_args if found is not None and found.path_args else ("path",)
    return next((args[key] for key in keys if key in args), None)


def preview_of(name: str) -> Preview:
    found = _declared.get(name)
    return found.preview if found is not None else "arguments"


def stored(name: str) -> bool:
    """Whether the tool's output goes to the blob store (an undeclared tool's does)."""
    found = _declared.get(name)
    return found is None or found.stored


def in_words(names: list[str]) -> str:
    """`a, b and c`: tool names as the prompt's prose lists them."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
