"""One registry for every tool the model can call: built-in, context, MCP and skill tools.

`run` is the loop's single entry point and the reason the loop never dies of a tool: bad JSON,
an unknown name, a missing required argument or any exception a tool raises all come back as an
error result naming the problem, which the model can read and correct. Cancellation is the one
thing that passes through, so Ctrl-C still stops a running tool.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from agent_tui.base import tool_decl
from agent_tui.tools.background_tools import background_tools
from agent_tui.tools.base import Tool, ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.bash import BashTool
from agent_tui.tools.context_tools import context_tools
from agent_tui.tools.files import EditFileTool, ReadFileTool, WriteFileTool
from agent_tui.tools.search import GlobTool, GrepTool, ListDirTool
from agent_tui.tools.tool_search import ToolSearchTool
from agent_tui.tools.web_fetch import WebFetchTool

if TYPE_CHECKING:
    from agent_tui.base.messages import ToolCall

log = logging.getLogger(__name__)

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _coerce(value: Any, kind: str) -> Any:
    """Accept the near-misses models produce ("10" for an integer, "true" for a boolean)."""
    if isinstance(value, str):
        text = value.strip()
        if kind == "integer" and text.lstrip("-").isdigit():
            return int(text)
        if kind == "number":
            try:
                return float(text)
            except ValueError:
                return value
        if kind == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true"
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def check_arguments(spec: ToolSpec, args: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Arguments checked against the top level of the schema: (coerced args, error or None)."""
    schema = spec.parameters or {}
    props: dict[str, Any] = schema.get("properties") or {}
    missing = [name for name in schema.get("required") or () if name not in args]
    if missing:
        expected = ", ".join(
            f"{n} ({props.get(n, {}).get('type', 'any')}{', required' if n in (schema.get('required') or ()) else ''})"
            for n in props
        )
        names = ", ".join(repr(m) for m in missing)
        return args, f"{spec.name}: missing required argument {names}. Expected: {expected}."
    if props and _closed(spec, schema):
        unknown = [name for name in args if name not in props]
        if unknown:
            names = ", ".join(repr(u) for u in unknown)
            return args, f"{spec.name}: unknown argument {names}. Expected: {', '.join(props)}."
    fixed = dict(args)
    for name, value in args.items():
        kind = (props.get(name) or {}).get("type")
        if not isinstance(kind, str) or kind not in _TYPES:
            continue
        value = _coerce(value, kind)
        ok = isinstance(value, _TYPES[kind]) and not (kind != "boolean" and isinstance(value, bool))
        if not ok and value is not None:
            return args, f"{spec.name}: argument '{name}' must be {kind}, got {type(value).__name__}."
        fixed[name] = value
    return fixed, None


def _closed(spec: ToolSpec, schema: dict[str, Any]) -> bool:
    """Whether arguments the schema does not name are refused: always for our own tools (an
    undeclared argument would reach the tool without the policy having looked at it), and for
    others when their schema says `additionalProperties: false`."""
    return spec.source in ("builtin", "context") or schema.get("additionalProperties") is False


TIME_LIMIT = 120.0
"""Seconds a tool declared `time_limited` (one that only touches files) may take: nothing it does
should take long, so one stuck on something it should not be (a FIFO, a hung network mount) is
stopped. Bash, MCP and the tools that wait on the user or a child agent keep their own limits."""


class ToolRegistry:
    """Tools by name, in registration order."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self.time_limit = TIME_LIMIT
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add a tool; a later registration under the same name replaces the earlier one."""
        name = tool.spec.name
        if name in self._tools:
            log.info("tool %s registered again; the newer one replaces it", name)
        self._tools[name] = tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def specs(self, names: Iterable[str] | None = None) -> list[ToolSpec]:
        """Specs of all tools, or of `names` (unknown names skipped), in registration order."""
        if names is None:
            return [tool.spec for tool in self._tools.values()]
        wanted = set(names)
        return [tool.spec for name, tool in self._tools.items() if name in wanted]

    def prepare(self, call: ToolCall) -> tuple[Tool, dict[str, Any]] | ToolOutput:
        """The tool and the arguments it will run with (parsed, checked and coerced against its
        schema, once), or the error the model gets. The permission policy decides on these same
        arguments, so what was approved is what runs."""
        tool = self._tools.get(call.name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return ToolOutput.error(f"unknown tool '{call.name}'. Available tools: {known}.")
        try:
            args = call.parsed_arguments()
        except ValueError as exc:
            return ToolOutput.error(
                f"arguments for {call.name} are not a valid JSON object ({exc}); "
                "send the arguments as one JSON object."
            )
        args, problem = check_arguments(tool.spec, args)
        if problem:
            return ToolOutput.error(problem)
        return tool, args

    async def run(
        self, call: ToolCall, ctx: ToolContext, prepared: tuple[Tool, dict[str, Any]] | None = None
    ) -> ToolOutput:
        """Run one call (with `prepared`: exactly those arguments, as the policy saw them).
        Never raises except for cancellation."""
        if prepared is None:
            ready = self.prepare(call)
            if isinstance(ready, ToolOutput):
                return ready
            prepared = ready
        tool, args = prepared
        try:
            declared = tool.spec.capabilities
            if declared is not None and declared.time_limited:
                try:
                    return await asyncio.wait_for(tool.run(args, ctx), self.time_limit)
                except TimeoutError:
                    return ToolOutput.error(
                        f"{call.name} did not finish within {self.time_limit:g} s and was stopped "
                        "(a file that blocks, like a FIFO or a hung mount?)"
                    )
            return await tool.run(args, ctx)
        except Exception as exc:
            log.exception("tool %s failed (call %s)", call.name, call.id)
            return ToolOutput.error(f"{call.name} failed: {type(exc).__name__}: {exc}")


def builtin_tools() -> list[Tool]:
    """The built-in tools, in the order the model sees them. Adding one is a class that
    declares its capabilities (tool_decl.py) and a line here."""

    tools: list[Tool] = [
        ReadFileTool(),
        WriteFileTool(),
        EditFileTool(),
        GrepTool(),
        GlobTool(),
        ListDirTool(),
        WebFetchTool(),
    ]
    on_paths = [
        t.spec.name for t in tools if t.spec.capabilities is not None and t.spec.capabilities.path_args
    ]
    tools.insert(3, BashTool(file_tools=on_paths))  # the model has always seen bash fourth
    return tools


def shipped_tools() -> list[Tool]:
    """Every tool of this layer agent-tui ships, whether or not a session offers it (the `task`
    and `skill` tools are built above, per session)."""
    return [*builtin_tools(), *context_tools(), *background_tools(), ToolSearchTool()]


@functools.cache
def declare_builtins() -> None:
    """Make every tool agent-tui ships known by its declaration (tool_decl.py) without a session:
    for readers of a stored transcript (the editor's replay) that name tools no registry built."""

    ToolRegistry(shipped_tools())


def session_lookups() -> frozenset[str]:
    """Every declared tool that only looks up the session, the built-ins among them: the calls
    recall leaves out of its index (the opener of the store passes this, store/conversation_index.py)."""
    declare_builtins()
    return tool_decl.session_lookups()
