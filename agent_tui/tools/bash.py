"""The bash tool: one shell command, its whole process tree under control, its output streamed.

The command runs as `bash -c` in a new session (so a new process group) in the workspace. When it
times out, when the turn is cancelled, or when it exits leaving background children behind, the
whole group gets SIGTERM and then SIGKILL — nothing it started outlives the call. stdout and
stderr are merged and streamed chunk by chunk into `ctx.offload`, so a 50 MB build log goes to
the blob store without ever being held whole in memory; without a store only a head and a tail
are kept. Past `[tools] max_output_bytes` the reading stops, the group is killed and the part
read so far is what is stored (`base64 /dev/urandom` cannot fill the disk). Starting and ending
the process group is tools/process_group.py's, shared with the background registry.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from agent_tui.base.tool_decl import Capabilities, in_words
from agent_tui.runtime import children
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.env import scrubbed
from agent_tui.tools.head_tail import HeadTail
from agent_tui.tools.process_group import (
    CHUNK_BYTES,
    DRAIN_GRACE,
    KILL_GRACE,
    Launch,
    OutputCap,
    format_seconds,
    shutdown,
    spawn,
    terminate_group,
)
from agent_tui.tools.process_group import group_alive as _group_alive  # tests read it from here
from agent_tui.tools.sandbox import BlockScan, Sandbox

log = logging.getLogger(__name__)

MAX_TIMEOUT = 1800.0

DESCRIPTION = """\
Run a shell command with `bash -c` in the workspace directory and return its combined \
stdout+stderr followed by a status line with the exit code and duration.
- Non-interactive: stdin is empty and pagers are disabled; never start editors or prompts.
- Default timeout is 120 s (`timeout` raises it, max 1800); on timeout the command and every \
process it started are killed. Processes left running in the background are stopped when the \
command ends, so do not start servers with `&`: pass `background: true` (returns a shell id at once; \
see bash_output, kill_shell).
- Long output is stored whole: you see its head and tail plus a ref to read or grep the rest.
- Prefer {file_tools} for files; use bash for \
builds, tests, git and other programs.
- Commands may run in a sandbox (writes only in the workspace and $TMPDIR, no network). When a \
command fails because the sandbox blocked it, the result says so; only then, and only if it \
must, call bash again with `unsandboxed: true` — the user is always asked first."""


class BashTool:
    spec = ToolSpec(
        name="bash",
        brief="Run a shell command in the workspace.",
        description=DESCRIPTION.format(file_tools="the file tools"),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line to run."},
                "timeout": {
                    "type": "number",
                    "description": "Seconds before the command is killed (default 120).",
                },
                "background": {
                    "type": "boolean",
                    "description": "Return at once with a shell id (servers, watchers).",
                },
                "unsandboxed": {
                    "type": "boolean",
                    "description": "Run outside the sandbox (only after the sandbox blocked it; asks the user).",
                },
            },
            "required": ["command"],
        },
        mutates=True,
        capabilities=Capabilities(
            kind="execute",
            claude_names=("Bash",),
            preview="command",
            prose="bash runs a shell command in the workspace (it asks the user first)",
        ),
    )

    def __init__(self, kill_grace: float = KILL_GRACE, file_tools: Sequence[str] = ()) -> None:
        """`file_tools`: the tools declared to work on paths, named in the description so the model
        prefers them (the registry's built-in list passes them)."""
        self.kill_grace = kill_grace
        if file_tools:
            self.spec = replace(
                self.spec, description=DESCRIPTION.format(file_tools=in_words(list(file_tools)))
            )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            return ToolOutput.error("command must be a non-empty string")
        timeout = args.get("timeout") or ctx.bash_timeout or 120.0
        try:
            timeout = min(max(float(timeout), 0.001), MAX_TIMEOUT)
        except (TypeError, ValueError):
            return ToolOutput.error(f"timeout must be a number of seconds, got {timeout!r}")
        shells = ctx.services.shells
        if args.get("background") is True:
            if shells is None:
                return ToolOutput.error(
                    "background commands are not available here; run it in the foreground"
                )
            return await shells.start(command, ctx, lambda: self.launch(command, args, ctx))
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        try:
            launch = await self.launch(command, args, ctx)
        except OSError as exc:
            return ToolOutput.error(f"could not start bash in {ctx.workspace}: {exc}")
        transport, protocol = launch.transport, launch.protocol
        sandbox, scan, missing, env_note = launch.sandbox, launch.scan, launch.missing, launch.env_note
        proc = asyncio.subprocess.Process(transport, protocol, loop)
        pgid = proc.pid
        cap = OutputCap(ctx.max_output_bytes)
        handover = asyncio.Event()  # Ctrl+B: stop reading here, the background registry goes on
        collect = asyncio.create_task(self._collect(proc, ctx, cap, scan, handover))
        exited = asyncio.create_task(protocol.exited.wait())
        detach = asyncio.create_task(shells.foreground(handover)) if shells is not None else None
        adopted = gone = False
        try:
            # Until bash exits, the timeout passes, or the output side fails (store down).
            waiting, deadline = {exited, collect, *([detach] if detach else [])}, loop.time() + timeout
            while not exited.done() and (remaining := deadline - loop.time()) > 0:
                await asyncio.wait(waiting, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
                if handover.is_set() and shells is not None and not collect.done():
                    ref, text, total = await collect  # it stops at once, its part stored
                    adopted = True
                    return await shells.adopted(command, launch, ctx, started, ref, text, total)
                if collect.done():
                    collect.result()  # re-raises a failed offload; the group is killed below
                    if cap.hit:
                        break  # printed past max_output_bytes: the group is killed below
                    waiting = {exited}
            timed_out = not exited.done() and not cap.hit
            # Also after a normal exit: background children would hold the pipe open.
            gone = await terminate_group(pgid, self.kill_grace)
            done, _ = await asyncio.wait({collect}, timeout=DRAIN_GRACE)
            if not done:
                # A process that left the group (`setsid … &`) still holds stdout: stop reading.
                log.info("bash output still open after its process group ended; closing it")
                pipe = transport.get_pipe_transport(1)
                if pipe is not None:
                    pipe.close()
            ref, text, total = await collect
        except BaseException:
            # Cancelled, or the store failed mid-stream: no child may survive the call.
            collect.cancel()
            await asyncio.shield(shutdown(pgid, protocol, self.kill_grace))
            raise
        finally:
            exited.cancel()
            if detach is not None:
                detach.cancel()
            if not adopted:  # an adopted command runs on: the background registry owns it now
                transport.close()
                if gone or not _group_alive(pgid):  # alive (cleanup cut short): the exit sweep's
                    children.unregister(pgid)
        duration = time.monotonic() - started
        code = transport.get_returncode()
        if cap.hit:
            status = (
                f"[output passed max_output_bytes ({cap.limit} bytes) after {format_seconds(duration)}; "
                "process group killed; the first part is kept]"
            )
            summary = f"output cap · killed · {format_seconds(duration)}"
        elif timed_out:
            status = f"[timed out after {timeout:g} s; process group killed]"
            summary = f"timed out · {format_seconds(duration)}"
        else:
            status = f"[exit code {code} · {format_seconds(duration)}]"
            summary = f"exit {code} · {format_seconds(duration)}"
        if env_note:
            status = f"{status} {env_note}"  # one status line: readers that skip it skip both
        if sandbox is not None:
            hint = sandbox.blocked_hint(scan, code) if scan is not None and not timed_out else None
            status, summary = await sandbox.closing_lines(status, summary, missing, hint)
        return ToolOutput(
            text=text,
            is_error=False,
            ref=ref,
            summary=summary,
            meta={
                "exit_code": code,
                "command": command,
                "duration": round(duration, 3),
                "timed_out": timed_out,
                "output_capped": cap.hit,
                "output_bytes": total,
                "status_line": status,
                "sandbox": sandbox.mode if sandbox is not None else "off",
            },
        )

    async def launch(self, command: str, args: dict[str, Any], ctx: ToolContext) -> Launch:
        """Start `command` in its own process group (in the sandbox unless the call ran
        unsandboxed after asking), registered with the watchdog. OSError when it cannot start."""
        session_env = ctx.services.env
        if session_env is None:  # no session (a bare tool call): scrubbed, nothing to tell
            env, env_note = scrubbed()[0], None
        else:
            env, env_note = session_env.build()
        sandbox: Sandbox | None = ctx.services.sandbox
        if sandbox is not None and (not sandbox.active or args.get("unsandboxed") is True):
            sandbox = None  # the policy already asked the user about an unsandboxed run
        scan = BlockScan() if sandbox is not None else None
        missing = sandbox.missing_protected() if sandbox is not None else []
        argv = ["bash", "-c", command]
        children.prepare()  # the watchdog exists before the command does
        if sandbox is not None:
            argv = await asyncio.to_thread(sandbox.wrap, argv, cwd=ctx.workspace)
        transport, protocol = await spawn(argv, ctx.workspace, env, self.kill_grace)
        children.register(transport.get_pid())  # killed by the watchdog if agent-tui dies first
        return Launch(transport, protocol, sandbox, scan, missing, env_note)

    async def _collect(
        self,
        proc: asyncio.subprocess.Process,
        ctx: ToolContext,
        cap: OutputCap | None = None,
        scan: BlockScan | None = None,
        stop: asyncio.Event | None = None,
    ) -> tuple[Any, str, int]:
        """Stream the output into the store (ref, "", bytes) or keep a head+tail (None, text, bytes).
        Past the cap it stops reading: the caller kills the group."""
        assert proc.stdout is not None
        stdout = proc.stdout
        total = 0

        async def read() -> bytes:
            """The next piece, or b"" once `stop` is set (what was not read stays in the pipe
            for whoever reads next: cancelling a pending read loses nothing)."""
            if stop is None:
                return await stdout.read(CHUNK_BYTES)
            reading = asyncio.ensure_future(stdout.read(CHUNK_BYTES))
            stopping = asyncio.ensure_future(stop.wait())
            try:
                await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopping.cancel()
                if not reading.done():
                    reading.cancel()
                    await asyncio.wait({reading})  # it may still have got its piece
            return b"" if reading.cancelled() else reading.result()

        async def chunks() -> AsyncIterator[bytes]:
            nonlocal total
            while chunk := await read():
                if cap is not None:
                    chunk = cap.take(total, chunk)
                total += len(chunk)
                if scan is not None:
                    scan.feed(chunk)
                if chunk:
                    if ctx.on_output is not None:
                        ctx.on_output(chunk)
                    yield chunk
                if cap is not None and cap.hit:
                    return

        if ctx.offload is not None:
            stream = chunks()
            ref = await ctx.offload("bash", stream)
            while not (cap and cap.hit) and await read():  # an offload that stopped early must
                pass  # not leave the command blocked on a full pipe
            return ref, "", total
        kept = HeadTail(ctx.max_message_bytes)
        async for chunk in chunks():
            kept.add(chunk)
        return None, kept.text(), total
