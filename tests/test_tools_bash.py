"""The bash tool: exit codes, streaming into an offload, head+tail capping, and process-group kills."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.base.messages import ResultRef
from agent_tui.tools.base import ToolContext
from agent_tui.tools.bash import BashTool
from tests.support.bash import alive, file_offload, running_with

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ToolContext(workspace=ws.resolve(), session_id="s", call_id="c")


class TestBasics:
    async def test_output_and_exit_code(self, ctx):
        """stdout and stderr are merged and the exit code lands in meta, summary and status line."""
        out = await BashTool().run({"command": "echo out; echo err >&2; exit 3"}, ctx)
        assert not out.is_error
        assert out.text == "out\nerr\n"
        assert out.meta["exit_code"] == 3 and out.meta["timed_out"] is False
        assert out.meta["status_line"].startswith("[exit code 3 · ")
        assert out.summary.startswith("exit 3 · ")
        assert out.meta["command"] == "echo out; echo err >&2; exit 3"

    async def test_runs_in_workspace(self, ctx):
        """The command starts in the workspace directory."""
        out = await BashTool().run({"command": "pwd"}, ctx)
        assert out.text.strip() == str(ctx.workspace)

    async def test_stdin_is_empty(self, ctx):
        """A command reading stdin gets EOF instead of hanging."""
        out = await BashTool().run({"command": "cat; echo done"}, ctx)
        assert out.text == "done\n"

    async def test_empty_command_is_error(self, ctx):
        """An empty command is an error result."""
        out = await BashTool().run({"command": "  "}, ctx)
        assert out.is_error

    async def test_background_children_stopped_at_exit(self, ctx, tmp_path):
        """A process left in the background is stopped when the command ends, without a timeout."""
        pidfile = tmp_path / "bg.pid"
        out = await BashTool(kill_grace=1.0).run(
            {"command": f"sleep 300 & echo $! > {pidfile}; echo started", "timeout": 60}, ctx
        )
        assert out.meta["timed_out"] is False and out.meta["exit_code"] == 0
        assert out.meta["duration"] < 30
        assert not alive(int(pidfile.read_text()))


class TestKill:
    async def test_timeout_kills_grandchild(self, ctx, tmp_path):
        """On timeout the whole process group dies, including a grandchild of the shell."""
        pidfile = tmp_path / "g.pid"
        command = f"sh -c 'sleep 300 & echo $! > {pidfile}; wait'"
        out = await BashTool(kill_grace=1.0).run({"command": command, "timeout": 1}, ctx)
        assert out.meta["timed_out"] is True
        assert out.meta["status_line"] == "[timed out after 1 s; process group killed]"
        assert out.summary.startswith("timed out")
        assert not alive(int(pidfile.read_text()))

    async def test_sigterm_ignored_gets_sigkill(self, ctx, tmp_path):
        """A group that ignores SIGTERM is SIGKILLed after the grace period."""
        pidfile = tmp_path / "g.pid"
        command = f"trap '' TERM; sleep 300 & echo $! > {pidfile}; wait; wait"
        out = await BashTool(kill_grace=0.3).run({"command": command, "timeout": 0.5}, ctx)
        assert out.meta["timed_out"] is True
        assert not alive(int(pidfile.read_text()))

    async def test_cancel_kills_grandchild(self, ctx, tmp_path):
        """Cancelling the task running the tool leaves no child or grandchild alive."""
        fifo = tmp_path / "pids"
        os.mkfifo(fifo)
        command = f"sh -c 'sleep 300 & echo $$ $! > {fifo}; wait'"
        task = asyncio.create_task(BashTool(kill_grace=1.0).run({"command": command}, ctx))
        pids = [int(p) for p in (await asyncio.to_thread(fifo.read_text)).split()]
        assert all(alive(p) for p in pids)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not any(alive(p) for p in pids)

    @pytest.mark.parametrize("steps", [1, 2, 3, 5, 8, 13])
    async def test_cancel_at_any_point_leaves_nothing(self, ctx, steps):
        """Cancelled after any number of loop steps (even while the pipes connect), nothing
        started by the command stays alive."""
        marker = f"{4000 + steps}.{os.getpid()}"
        task = asyncio.create_task(
            BashTool(kill_grace=1.0).run({"command": f"sh -c 'sleep {marker} & wait' & sleep {marker}"}, ctx)
        )
        for _ in range(steps):
            await asyncio.sleep(0)  # choose where the cancellation lands, not waiting for anything
        task.cancel()
        try:
            done, _ = await asyncio.wait({task}, timeout=20)
            assert task in done, "cancellation hung: an orphan holds the output pipe"
            with pytest.raises(asyncio.CancelledError):
                task.result()
            assert [pid for pid in running_with(marker) if alive(pid)] == []
        finally:
            for pid in running_with(marker):  # on failure, do not leave the sleeps behind
                os.kill(pid, signal.SIGKILL)

    async def test_cancel_while_streaming_into_offload(self, ctx, tmp_path):
        """Cancellation during a streamed offload also kills the group."""
        fifo = tmp_path / "pids"
        os.mkfifo(fifo)
        ctx.offload = file_offload(tmp_path)
        command = f"sleep 300 & echo $! > {fifo}; while true; do echo tick; sleep 0.05; done"
        task = asyncio.create_task(BashTool(kill_grace=1.0).run({"command": command}, ctx))
        pid = int(await asyncio.to_thread(fifo.read_text))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not alive(pid)

    async def test_process_escaping_the_group_does_not_hang(self, ctx, tmp_path):
        """A `setsid` child keeping stdout open cannot make the call wait for its timeout."""
        pidfile = tmp_path / "escaped.pid"
        out = await BashTool(kill_grace=0.5).run(
            {"command": f"setsid sleep 300 & echo $! > {pidfile}; echo hi", "timeout": 60}, ctx
        )
        pid = int(pidfile.read_text())
        try:
            assert out.text == "hi\n" and not out.meta["timed_out"]
            assert out.meta["duration"] < 30
        finally:
            os.kill(pid, signal.SIGKILL)  # it left our process group: ours to clean up here

    async def test_failing_offload_kills_group_and_raises(self, ctx, tmp_path):
        """When the store fails mid-stream the error propagates and the group is killed."""
        pidfile = tmp_path / "pids"

        async def broken(tool_name: str, content: AsyncIterator[bytes]) -> ResultRef:
            await content.__anext__()
            raise RuntimeError("disk full")

        ctx.offload = broken
        command = f"echo $$ > {pidfile}; sleep 300 & echo $! >> {pidfile}; echo go; wait"
        with pytest.raises(RuntimeError, match="disk full"):
            await BashTool(kill_grace=1.0).run({"command": command}, ctx)
        assert not any(alive(int(p)) for p in pidfile.read_text().split())


class TestStreaming:
    async def test_output_streams_into_offload(self, ctx, tmp_path):
        """With an offload, the output goes there whole and the text is empty."""
        ctx.offload = file_offload(tmp_path)
        out = await BashTool().run({"command": "seq 1 1000; exit 1"}, ctx)
        assert out.text == "" and out.ref is not None
        assert out.ref.line_count == 1000 and out.meta["output_bytes"] == out.ref.byte_size
        stored = ctx.offload.stored[out.ref.id].read_text()
        assert stored.splitlines()[-1] == "1000"
        assert out.meta["status_line"].startswith("[exit code 1 · ")

    async def test_offload_that_stops_early_does_not_stall(self, ctx):
        """An offload that reads one chunk only still lets a large command finish."""

        async def lazy(tool_name: str, content: AsyncIterator[bytes]) -> ResultRef:
            first = await content.__anext__()
            return ResultRef(id="r_x", byte_size=len(first), line_count=0, tool_name=tool_name)

        ctx.offload = lazy
        out = await BashTool().run({"command": "head -c 2000000 /dev/zero", "timeout": 60}, ctx)
        assert out.meta["exit_code"] == 0 and not out.meta["timed_out"]

    async def test_inline_output_keeps_head_and_tail(self, ctx):
        """Without an offload, only a head and a tail within max_message_bytes are kept."""
        ctx.max_message_bytes = 1000
        out = await BashTool().run({"command": "seq 1 100000"}, ctx)
        assert len(out.text.encode()) < 1100
        assert out.text.startswith("1\n2\n3\n")
        assert out.text.rstrip().endswith("99999\n100000")
        assert "bytes of output omitted" in out.text
        assert out.meta["output_bytes"] == len("\n".join(map(str, range(1, 100001)))) + 1

    async def test_fifty_megabytes_never_held_whole(self, tmp_path):
        """50 MB of output streams through a file-backed offload with little peak-RSS growth."""
        script = tmp_path / "big.py"
        script.write_text(
            textwrap.dedent(f"""
            import asyncio, json, sys
            from pathlib import Path
            sys.path.insert(0, {str(REPO)!r})
            from tests.support.bash import file_offload
            from agent_tui.tools.base import ToolContext
            from agent_tui.tools.bash import BashTool

            def hwm():
                for line in open("/proc/self/status"):
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024

            async def main():
                folder = Path({str(tmp_path)!r})
                ctx = ToolContext(workspace=folder, session_id="s", call_id="c",
                                  offload=file_offload(folder))
                await BashTool().run({{"command": "true"}}, ctx)  # warm up
                before = hwm()
                out = await BashTool().run(
                    {{"command": "yes 'a line of build output' | head -c 52428800", "timeout": 120}}, ctx)
                print(json.dumps({{"growth": hwm() - before, "bytes": out.ref.byte_size,
                                  "lines": out.ref.line_count, "exit": out.meta["exit_code"],
                                  "text": out.text}}))
            asyncio.run(main())
        """)
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(script), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        stdout, stderr = await proc.communicate()
        assert proc.returncode == 0, stderr.decode()
        result = json.loads(stdout)
        assert result["bytes"] == 52428800 and result["exit"] == 0 and result["text"] == ""
        assert result["lines"] == 52428800 // len("a line of build output\n")
        assert result["growth"] < 8 * 1024 * 1024, result
