"""Tools read only regular files, without blocking, in bounded pieces, under a time limit: a FIFO
in the workspace or as `.gitignore` cannot hang them and a huge one-line file cannot exhaust
memory."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.base.messages import ToolCall
from agent_tui.base.tool_decl import Capabilities
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.registry import ToolRegistry, builtin_tools

HANG_GUARD = 60.0
"""Only so a regression fails instead of hanging the suite; the tools answer at once."""


def context(ws: Path) -> ToolContext:
    return ToolContext(workspace=ws, session_id="s", call_id="c")


async def call(ws: Path, name: str, **args) -> ToolOutput:
    registry = ToolRegistry(builtin_tools())
    run = registry.run(ToolCall("c1", name, json.dumps(args)), context(ws))
    return await asyncio.wait_for(run, HANG_GUARD)


@pytest.fixture
def fifo_ws(workspace: Path) -> Path:
    (workspace / "notes.txt").write_text("needle here\n")
    os.mkfifo(workspace / "pipe")
    return workspace.resolve()


async def test_grep_skips_a_fifo(fifo_ws):
    """wall: tools — grep over a workspace with a FIFO in it finds the match and does not hang."""
    out = await call(fifo_ws, "grep", pattern="needle")
    assert not out.is_error and "notes.txt:1:needle here" in out.text


async def test_grep_of_a_fifo_itself_is_an_error(fifo_ws):
    """wall: tools — grep pointed at a FIFO says it is not a regular file."""
    out = await call(fifo_ws, "grep", pattern="needle", path="pipe")
    assert out.is_error and "not a regular file" in out.text


async def test_read_file_of_a_fifo_is_an_error(fifo_ws):
    """wall: tools — read_file of a FIFO is refused at once."""
    out = await call(fifo_ws, "read_file", path="pipe")
    assert out.is_error and "not a regular file" in out.text


async def test_write_file_over_a_fifo_is_an_error(fifo_ws):
    """wall: tools — write_file onto a FIFO path is refused, not blocked on its reader."""
    out = await call(fifo_ws, "write_file", path="pipe", content="x")
    assert out.is_error and "not a regular file" in out.text


async def test_fifo_gitignore_does_not_hang_list_dir_or_glob(workspace):
    """wall: tools — a FIFO named .gitignore is ignored as rules; list_dir and glob answer."""
    (workspace / "a.py").write_text("x\n")
    os.mkfifo(workspace / ".gitignore")
    listed = await call(workspace, "list_dir")
    assert not listed.is_error and "a.py" in listed.text
    globbed = await call(workspace, "glob", pattern="*.py")
    assert "a.py" in globbed.text
    grepped = await call(workspace, "grep", pattern="x")
    assert "a.py:1:x" in grepped.text


class Stuck:
    """A tool that never finishes, standing in for one blocked on something it should not be."""

    spec = ToolSpec(
        "stuck",
        "never returns",
        {"type": "object", "properties": {}},
        capabilities=Capabilities(kind="read", time_limited=True),
    )

    async def run(self, args, ctx):
        await asyncio.Event().wait()


async def test_non_bash_tools_run_under_a_time_limit(workspace):
    """wall: tools — a built-in tool that does not finish is stopped with an error at the limit."""
    registry = ToolRegistry([Stuck()])
    registry.time_limit = 0.2
    out = await asyncio.wait_for(registry.run(ToolCall("c1", "stuck", "{}"), context(workspace)), HANG_GUARD)
    assert out.is_error and "did not finish" in out.text


PEAK = """
import asyncio, json, resource, sys
from pathlib import Path
from agent_tui.base.messages import ToolCall
from agent_tui.tools.base import ToolContext
from agent_tui.tools.registry import ToolRegistry, builtin_tools

ws = Path(sys.argv[1])
registry = ToolRegistry(builtin_tools())
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = asyncio.run(registry.run(ToolCall("c", sys.argv[2], sys.argv[3]), ToolContext(ws, "s", "c")))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"kib": after - before, "error": out.is_error, "text": out.text[:300]}))
"""


@pytest.mark.parametrize(
    ("tool", "args"),
    [("read_file", {"path": "big.txt", "limit": 5}), ("grep", {"pattern": "needle"})],
)
def test_a_huge_one_line_file_is_read_in_bounded_pieces(workspace, tool, args):
    """wall: tools — a 64 MB one-line file raises peak memory by far less than its size."""
    size = 64 << 20
    with (workspace / "big.txt").open("wb") as fh:
        fh.write(b"needle " + b"x" * (size - 8) + b"\n")
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, str(workspace), tool, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ},
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["kib"] < 8 << 10, f"peak rose by {result['kib']} KiB reading a {size >> 20} MB line"
    assert "big.txt" in result["text"] or "1\t" in result["text"]
