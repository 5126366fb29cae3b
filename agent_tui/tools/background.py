"""Background commands: a dev server or a watcher that runs while the agent keeps working.

`bash` with `background: true` starts the command exactly as a foreground one (same sandbox,
same scrubbed environment, its own process group registered with the watchdog) and returns at
once with a shell id and the ref of its output. The output is a growing blob (store/growing.py):
readable by ref while it runs. `bash_output` returns what arrived since the last read;
`kill_shell` ends the process group. The session owns the registry: the per-turn status note
lists the running ones and says once when one ended (prompting.py asks `section()`), and every
one still running ends with the session (`end_all`), which the store records so a resumed
session is told which were lost.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agent_tui.base.units import human_size
from agent_tui.context.prompt_sections import PromptSection
from agent_tui.runtime import children
from agent_tui.store.background_log import ENDED_WITH_SESSION, LostCommand
from agent_tui.tools.background_note import status_note
from agent_tui.tools.background_shell import CAPPED, EXITED, KILLED, RUNNING, UNREAD_BYTES, Shell
from agent_tui.tools.base import ToolContext, ToolOutput
from agent_tui.tools.head_tail import HeadTail
from agent_tui.tools.process_group import (
    CHUNK_BYTES,
    DRAIN_GRACE,
    KILL_GRACE,
    Launch,
    OutputCap,
    format_seconds,
    group_alive,
    terminate_group,
)

if TYPE_CHECKING:
    from agent_tui.store import Store
    from agent_tui.store.growing import GrowingBlob

log = logging.getLogger(__name__)

__all__ = ["BackgroundShells", "Shell"]  # Shell is background_shell.py's; the TUI reads it from here


class BackgroundShells:
    """The background commands of one session."""

    def __init__(
        self, session_id: str, store: Store | None, limit: int = 8, kill_grace: float = KILL_GRACE
    ) -> None:
        self.session_id = session_id
        self.store = store
        self.limit = limit
        self.kill_grace = kill_grace
        self.shells: dict[str, Shell] = {}
        self.lost: list[LostCommand] = []
        """Commands of an earlier process of this session, not yet told to the model."""
        self.listeners: list[Callable[[], None]] = []
        """Called when a command starts or ends (the TUI's running count)."""
        self._number = 0
        self._pumps: set[asyncio.Task[None]] = set()
        self._detach: asyncio.Event | None = None

    # -- state -----------------------------------------------------------------------------

    def running(self) -> list[Shell]:
        return [s for s in self.shells.values() if s.running]

    def _changed(self) -> None:
        for listener in list(self.listeners):
            try:
                listener()
            except Exception:
                log.exception("a background-command listener failed")

    async def load_lost(self) -> None:
        """On resume: what ended with the session's last process, and where numbering stands."""
        if self.store is None:
            return
        try:
            self.lost = await self.store.background.take_lost(self.session_id)
            self._number = await self.store.background.last_number(self.session_id)
        except Exception:
            log.exception("could not read this session's earlier background commands")

    # -- starting --------------------------------------------------------------------------

    async def start(
        self, command: str, ctx: ToolContext, launch_command: Callable[[], Awaitable[Launch]]
    ) -> ToolOutput:
        """Start `command` (through `launch_command`, which bash gives) and return at once."""
        if len(self.running()) >= self.limit:
            ids = ", ".join(s.id for s in self.running()) or "none"
            return ToolOutput.error(
                f"{self.limit} background commands are running already ([tools] max_background); "
                f"stop one with kill_shell (running: {ids}) or run this one in the foreground"
            )
        blob = await self._open_blob(ctx)
        # Recorded before it can run: a process killed right after the launch still leaves a
        # row, so a resumed session is told the command is gone.
        shell_id = await self._record_start(command, blob)
        try:
            launch = await launch_command()
        except OSError as exc:
            if blob is not None:
                await self.store.results.close_growing(blob)  # type: ignore[union-attr]
            await self._record_end(shell_id, "could not start", None)
            return ToolOutput.error(f"could not start bash in {ctx.workspace}: {exc}")
        shell = self._run(shell_id, command, launch, time.monotonic(), blob, ctx.max_output_bytes)
        where = f" Its output is stored as it streams: ref {shell.ref_id}." if shell.ref_id else ""
        text = (
            f"Started in the background as {shell.id}.{where} Read what is new with "
            f'bash_output(id="{shell.id}"), stop it with kill_shell(id="{shell.id}"); you will be '
            "told when it ends. It is stopped when the session ends."
        )
        note = f"[{launch.env_note}]" if launch.env_note else ""
        return ToolOutput(
            text=f"{text}\n{note}".rstrip(),
            summary=f"⧗ background {shell.id}"
            + (f" · output ref {shell.ref_id}" if shell.ref_id else "")
            + " · /tasks",
            meta={"command": command, "background": shell.id, "output_ref": shell.ref_id},
        )

    # -- Ctrl+B: a foreground command goes on in the background ------------------------------

    async def foreground(self, handover: asyncio.Event) -> None:
        """A foreground bash call runs until this returns (the user asked to background it):
        it then sets `handover`, its reading stops and `adopted` takes the command over."""
        self._detach = asyncio.Event()
        try:
            await self._detach.wait()
            handover.set()
        finally:
            self._detach = None

    def detach_foreground(self) -> str | None:
        """Ctrl+B: move the running foreground command to the background. Returns why not."""
        if self._detach is None or self._detach.is_set():
            return "no command is running in the foreground"
        if len(self.running()) >= self.limit:
            return f"{self.limit} background commands run already ([tools] max_background)"
        self._detach.set()
        return None

    async def adopted(
        self, command: str, launch: Launch, ctx: ToolContext, started: float, ref: Any, text: str, total: int
    ) -> ToolOutput:
        """Take over a foreground command the user sent to the background; its call returns what
        it printed so far (stored as `ref` when the store is up) and the new shell's id."""
        blob = await self._open_blob(ctx)
        shell_id = await self._record_start(command, blob)
        shell = self._run(shell_id, command, launch, started, blob, max(ctx.max_output_bytes - total, 0))
        more = f" its further output: ref {shell.ref_id};" if shell.ref_id else ""
        status = (
            f"[moved to the background by the user after {format_seconds(time.monotonic() - started)} "
            f'as {shell.id};{more} bash_output(id="{shell.id}") reads it, kill_shell stops it]'
        )
        return ToolOutput(
            text=text,
            ref=ref,
            summary=f"background {shell.id}",
            meta={"command": command, "background": shell.id, "status_line": status, "output_bytes": total},
        )

    async def _open_blob(self, ctx: ToolContext) -> GrowingBlob | None:
        """Where the output goes as it arrives; None (kept in memory only) when the store is down."""
        if self.store is None or ctx.offload is None:
            return None
        try:
            return await self.store.results.open_growing(self.session_id, "bash", ctx.call_id)
        except Exception:
            log.exception("could not open a stored output for a background command; keeping it in memory")
            return None

    async def _record_start(self, command: str, blob: GrowingBlob | None) -> str:
        """The next shell id, its row written as `running`."""
        self._number += 1
        shell_id = f"sh_{self._number}"
        if self.store is not None:
            try:
                await self.store.background.started(
                    self.session_id, shell_id, command, blob.id if blob is not None else None
                )
            except Exception:
                log.exception("could not record background command %s", shell_id)
        return shell_id

    async def _record_end(self, shell_id: str, state: str, exit_code: int | None) -> None:
        if self.store is not None:
            try:
                await self.store.background.ended(self.session_id, shell_id, state, exit_code)
            except Exception:
                log.exception("could not record the end of %s", shell_id)

    def _run(
        self,
        shell_id: str,
        command: str,
        launch: Launch,
        started: float,
        blob: GrowingBlob | None,
        max_bytes: int,
    ) -> Shell:
        """Register a started command and read it in its own task from now on."""
        shell = Shell(shell_id, command, launch.transport.get_pid(), started, blob)
        self.shells[shell.id] = shell
        pump = asyncio.create_task(self._pump(shell, launch, max_bytes), name=f"bg-{shell.id}")
        self._pumps.add(pump)
        pump.add_done_callback(self._pumps.discard)
        self._changed()
        return shell

    async def _pump(self, shell: Shell, launch: Launch, max_bytes: int) -> None:
        """Read the output into the shell until the command ends, then record how it ended."""
        loop = asyncio.get_running_loop()
        transport, protocol = launch.transport, launch.protocol
        proc = asyncio.subprocess.Process(transport, protocol, loop)
        assert proc.stdout is not None
        stdout = proc.stdout
        cap = OutputCap(max_bytes)

        async def read() -> None:
            total = 0
            while chunk := await stdout.read(CHUNK_BYTES):
                chunk = cap.take(total, chunk)
                total += len(chunk)
                if launch.scan is not None:
                    launch.scan.feed(chunk)
                if chunk:
                    shell.take(chunk)
                if cap.hit:
                    return

        reader = asyncio.create_task(read())
        exited = asyncio.create_task(protocol.exited.wait())
        try:
            await asyncio.wait({reader, exited}, return_when=asyncio.FIRST_COMPLETED)
            if reader.done() and cap.hit:
                shell.state = CAPPED
                await terminate_group(shell.pgid, self.kill_grace)
            await exited
            # bash is gone; what it left in its group goes too (as for a foreground command).
            await terminate_group(shell.pgid, self.kill_grace)
            done, _ = await asyncio.wait({reader}, timeout=DRAIN_GRACE)
            if not done:
                pipe = transport.get_pipe_transport(1)
                if pipe is not None:
                    pipe.close()
                await asyncio.wait({reader}, timeout=DRAIN_GRACE)
        except BaseException:
            await asyncio.shield(terminate_group(shell.pgid, self.kill_grace))
            raise
        finally:
            reader.cancel()
            exited.cancel()
            transport.close()
            if not group_alive(shell.pgid):
                children.unregister(shell.pgid)
            shell.exit_code = transport.get_returncode()
            shell.ended = time.monotonic()
            if shell.state == RUNNING:
                shell.state = EXITED
            await asyncio.shield(self._finish(shell, launch))

    async def _finish(self, shell: Shell, launch: Launch) -> None:
        if launch.sandbox is not None:
            try:
                notes = await asyncio.to_thread(launch.sandbox.sweep, launch.missing)
                hint = launch.sandbox.blocked_hint(launch.scan, shell.exit_code) if launch.scan else None
                shell.status = "\n".join([*(f"[{n}]" for n in notes), *([hint] if hint else [])])
            except Exception:
                log.exception("sandbox sweep after %s failed", shell.id)
        if shell.blob is not None and self.store is not None:
            try:
                await self.store.results.close_growing(shell.blob)
            except Exception:
                log.exception("could not finish the output of %s", shell.id)
        await self._record_end(shell.id, shell.state, shell.exit_code)
        shell.arrived.set()
        shell.done.set()
        self._changed()

    # -- reading and stopping --------------------------------------------------------------

    def get(self, shell_id: str) -> Shell | ToolOutput:
        shell = self.shells.get(str(shell_id).strip())
        if shell is not None:
            return shell
        known = ", ".join(self.shells) or "none started in this session"
        return ToolOutput.error(f"no background command {shell_id!r} (known: {known})")

    async def output(self, shell_id: str, wait: float = 0.0) -> ToolOutput:
        """What arrived since the last read, the state, and the exit code once it ended."""
        shell = self.get(shell_id)
        if isinstance(shell, ToolOutput):
            return shell
        if wait > 0 and shell.running and not shell.unread.total:
            shell.arrived.clear()
            try:
                await asyncio.wait_for(shell.arrived.wait(), min(wait, 600.0))
            except TimeoutError:
                pass
        if shell.blob is not None:
            await shell.blob.flush()
        new, shell.unread = shell.unread, HeadTail(UNREAD_BYTES)
        body = new.text() if new.total else "(no new output)"
        lines = shell.blob.ref().line_count if shell.blob is not None else 0
        parts = [
            f"[{shell.id} · {self._state_text(shell)} · {shlex.quote(shell.command)[:200]}]",
            body.rstrip("\n"),
        ]
        if shell.blob is not None:
            span = f"new lines {shell.lines_read + 1}-{lines} of " if lines > shell.lines_read else ""
            parts.append(
                f"[{span}ref {shell.blob.id} ({lines} lines, {human_size(shell.received)} so far); "
                f'read_result(ref_id="{shell.blob.id}") or grep_result read all of it]'
            )
            shell.lines_read = lines
        if shell.status:
            parts.append(shell.status)
        if not shell.running:
            shell.told_end = True
        return ToolOutput(
            text="\n".join(parts),
            summary=f"{shell.id} {self._state_text(shell)}",
            meta={"background": shell.id, "state": shell.state, "exit_code": shell.exit_code},
        )

    def _state_text(self, shell: Shell) -> str:
        if shell.running:
            return f"running {format_seconds(shell.elapsed())}"
        return shell.describe_end()

    async def kill(self, shell_id: str) -> ToolOutput:
        shell = self.get(shell_id)
        if isinstance(shell, ToolOutput):
            return shell
        if not shell.running:
            shell.told_end = True
            return ToolOutput(
                text=f"[{shell.id} already {shell.describe_end()}]", summary=f"{shell.id} ended"
            )
        await self.stop(shell)
        shell.told_end = True
        ref = f"; its output stays readable: ref {shell.ref_id}" if shell.ref_id else ""
        return ToolOutput(
            text=f"[{shell.id} {shell.describe_end()}{ref}]",
            summary=f"{shell.id} killed",
            meta={"background": shell.id, "state": shell.state},
        )

    async def stop(self, shell: Shell, state: str = KILLED) -> None:
        """End its process group and wait until its end is recorded."""
        if shell.running:
            shell.state = state
            await terminate_group(shell.pgid, self.kill_grace)
        await shell.done.wait()

    async def end_all(self) -> list[Shell]:
        """The session ends: stop every running command; returns the ones stopped."""
        running = self.running()
        await asyncio.gather(*(self.stop(s, ENDED_WITH_SESSION) for s in running))
        return running

    # -- the status note -------------------------------------------------------------------

    def section(self) -> PromptSection | None:
        """The per-request note: running commands always, ended ones until the model heard."""
        ended = [s for s in self.shells.values() if not s.running and not s.told_end]
        return status_note(self.lost, ended, self.running())

    def sent(self) -> None:
        """A request carried the note: what it said once need not be said again."""
        self.lost = []
        for shell in self.shells.values():
            if not shell.running:
                shell.told_end = True
