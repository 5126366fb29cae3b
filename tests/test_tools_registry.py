"""The tool registry: lookup, argument checks, and no tool failure ever escaping as an exception."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from agent_tui.base.messages import ToolCall
from agent_tui.base.tokens import TokenCounter
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.registry import ToolRegistry, builtin_tools


class Echo:
    """A real tool: returns its arguments."""

    spec = ToolSpec(
        name="echo",
        description="Echo the arguments.",
        parameters={
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "times": {"type": "integer"},
                "loud": {"type": "boolean"},
            },
            "required": ["text"],
        },
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text=repr(sorted(args.items())))


class Broken:
    spec = ToolSpec(
        name="broken", description="Always fails.", parameters={"type": "object", "properties": {}}
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        raise KeyError("boom")


class Slow:
    spec = ToolSpec(
        name="slow", description="Waits forever.", parameters={"type": "object", "properties": {}}
    )

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        self.started.set()
        await asyncio.Event().wait()
        return ToolOutput()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path.resolve(), session_id="s", call_id="c")


def call(name: str, arguments: str) -> ToolCall:
    return ToolCall(id="call_1", name=name, arguments=arguments)


class TestRegistry:
    def test_register_get_specs(self):
        """Tools are kept by name in order; specs can be filtered; unregister removes."""
        registry = ToolRegistry([Echo(), Broken()])
        assert registry.names() == ["echo", "broken"] and "echo" in registry and len(registry) == 2
        assert [s.name for s in registry.specs(["broken", "nope"])] == ["broken"]
        registry.unregister("broken")
        assert registry.get("broken") is None and registry.names() == ["echo"]

    def test_builtin_tools(self):
        """builtin_tools gives the seven built-ins; only bash, write_file and edit_file mutate."""
        registry = ToolRegistry(builtin_tools())
        assert registry.names() == [
            "read_file",
            "write_file",
            "edit_file",
            "bash",
            "grep",
            "glob",
            "list_dir",
            "web_fetch",
        ]
        assert {s.name for s in registry.specs() if s.mutates} == {
            "bash",
            "write_file",
            "edit_file",
            "web_fetch",
        }
        assert all(s.source == "builtin" and s.description for s in registry.specs())

    def test_schema_token_cost_stays_small(self):
        """The seven tool descriptions together cost well under 1 500 tokens."""
        schemas = [s.schema() for s in ToolRegistry(builtin_tools()).specs()]
        assert TokenCounter().count_tools(schemas) < 1500


class TestRun:
    async def test_runs_with_coerced_arguments(self, ctx):
        """Near-miss argument types ("3", "true") are coerced to the schema's types."""
        out = await ToolRegistry([Echo()]).run(
            call("echo", '{"text": "hi", "times": "3", "loud": "true"}'), ctx
        )
        assert out.text == "[('loud', True), ('text', 'hi'), ('times', 3)]"

    async def test_unknown_tool(self, ctx):
        """An unknown tool is an error result listing what exists."""
        out = await ToolRegistry([Echo()]).run(call("nope", "{}"), ctx)
        assert out.is_error and "unknown tool 'nope'" in out.text and "echo" in out.text

    @pytest.mark.parametrize("arguments", ['{"text": ', "[1, 2]", "not json"])
    async def test_bad_json(self, ctx, arguments):
        """Arguments that are not a JSON object are an error result."""
        out = await ToolRegistry([Echo()]).run(call("echo", arguments), ctx)
        assert out.is_error and "not a valid JSON object" in out.text

    async def test_missing_required(self, ctx):
        """A missing required argument is named, with the expected arguments."""
        out = await ToolRegistry([Echo()]).run(call("echo", "{}"), ctx)
        assert out.is_error and "missing required argument 'text'" in out.text
        assert "text (string, required)" in out.text

    async def test_wrong_type(self, ctx):
        """An argument of the wrong type is named."""
        out = await ToolRegistry([Echo()]).run(call("echo", '{"text": "a", "times": "many"}'), ctx)
        assert out.is_error and "'times' must be integer" in out.text

    async def test_exception_becomes_error_result(self, ctx, caplog):
        """An exception inside a tool is an error result and is logged with its traceback."""
        with caplog.at_level(logging.ERROR, logger="agent_tui.tools.registry"):
            out = await ToolRegistry([Broken()]).run(call("broken", ""), ctx)
        assert out.is_error and out.text == "Error: broken failed: KeyError: 'boom'"
        assert caplog.records and caplog.records[0].exc_info is not None

    async def test_cancellation_passes_through(self, ctx):
        """Cancelling a running tool cancels the caller (Ctrl-C must still stop a tool)."""
        slow = Slow()
        task = asyncio.create_task(ToolRegistry([slow]).run(call("slow", "{}"), ctx))
        await slow.started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    async def test_builtin_through_registry(self, ctx):
        """A built-in tool runs end to end through the registry."""
        (ctx.workspace / "f.txt").write_text("hello\n")
        out = await ToolRegistry(builtin_tools()).run(call("read_file", '{"path": "f.txt"}'), ctx)
        assert out.text == "     1\thello\n"
