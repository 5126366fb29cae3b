"""`bash` in the editor's terminal, when the client offers the `terminal` capability.

The editor then starts the command (`terminal/create`) and shows its live output in the tool
call's card, which embeds the terminal; we wait for it (`terminal/wait_for_exit`, bounded by our
timeout), read what it printed (`terminal/output`) and end it (`terminal/kill` on timeout or
cancel, `terminal/release` always). Everything that is ours stays ours:
- approval: the tool runner asks before this tool runs, so a denied command never reaches the
  editor; an unsandboxed rerun still asks every time;
- the sandbox: the editor is asked to run the sandbox's own command line (bwrap around bash), so
  a sandboxed command is confined exactly as when we start it; protected paths it created are
  swept afterwards and a refusal in its output is reported to the model the same way;
- secrets: variables we withhold from commands are unset with `env -u` in front of the command;
- the output: stored whole in our blob store, the model gets our head-and-tail view and ref.
Background commands (`background: true`) and calls the editor has no card for (a custom command's
inline `!` lines) are run by us, the former in the session's background registry.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from acp import schema as s
from acp.helpers import update_tool_call

from agent_tui.base.errors_text import one_line
from agent_tui.tools.base import ToolOutput
from agent_tui.tools.bash import MAX_TIMEOUT
from agent_tui.tools.env import scrubbed
from agent_tui.tools.head_tail import HeadTail
from agent_tui.tools.process_group import ENV_OVERRIDES
from agent_tui.tools.sandbox import BlockScan

if TYPE_CHECKING:
    from agent_tui.tools.base import Tool, ToolContext
    from agent_tui.tools.registry import ToolRegistry
    from agent_tui.tools.sandbox import BlockScan, Sandbox

log = logging.getLogger(__name__)

END_GRACE = 2.0
"""Seconds the editor gets to kill and release a terminal when the call is cancelled."""


class EditorTerminals:
    """The connected editor's `terminal/*` methods for one session, and which terminal each of
    its tool calls shows (the translator embeds it in the call's final update)."""

    def __init__(
        self, client: Any, session_id: Callable[[], str], shown: Callable[[str], bool] = lambda _id: True
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.shown = shown
        """Whether the editor has a card for a call id: only those can embed a terminal (a custom
        command's inline `!` line runs as a call the editor never saw)."""
        self.by_call: dict[str, str] = {}
        """Terminal id by tool call id."""

    async def end(self, terminal_id: str, *, kill: bool) -> None:
        """Kill (when asked) and release; an editor that is gone or refuses loses us nothing."""
        sid = self.session_id()
        try:
            if kill:
                await self.client.kill_terminal(session_id=sid, terminal_id=terminal_id)
            await self.client.release_terminal(session_id=sid, terminal_id=terminal_id)
        except Exception:
            log.info("the editor did not end terminal %s", terminal_id, exc_info=True)


class Prepared:
    """The command line the editor is asked to run, and the sandbox facts reported after it."""

    def __init__(self, argv: list[str], sandbox: Sandbox | None, env_note: str | None) -> None:

        self.argv = argv
        self.sandbox = sandbox
        self.env_note = env_note
        self.scan: BlockScan | None = BlockScan() if sandbox is not None else None
        self.missing = sandbox.missing_protected() if sandbox is not None else []


async def prepare(command: str, args: dict[str, Any], ctx: ToolContext) -> Prepared:
    """`bash -c command`, inside the sandbox unless the call was allowed to run outside it, with
    the variables our own commands do not get unset."""

    session_env = ctx.services.env
    env, env_note = session_env.build() if session_env is not None else (scrubbed()[0], None)
    sandbox: Sandbox | None = ctx.services.sandbox
    if sandbox is not None and (not sandbox.active or args.get("unsandboxed") is True):
        sandbox = None  # the policy already asked the user about an unsandboxed run
    argv = ["bash", "-c", command]
    if sandbox is not None:
        argv = await asyncio.to_thread(sandbox.wrap, argv, cwd=ctx.workspace)
    withheld = sorted(set(os.environ) - set(env))
    if withheld:
        unset = [part for name in withheld for part in ("-u", name)]
        argv = [shutil.which("env") or "/usr/bin/env", *unset, *argv]
    return Prepared(argv, sandbox, env_note)


class TerminalBash:
    """Our `bash` (same name and spec) with foreground commands run by the editor."""

    def __init__(self, inner: Tool, terminals: EditorTerminals) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.terminals = terminals

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:

        command = args.get("command")
        if (
            args.get("background") is True
            or not isinstance(command, str)
            or not command.strip()
            or not self.terminals.shown(ctx.call_id)
        ):
            return await self.inner.run(args, ctx)  # ours: background, unseen calls, bad arguments
        try:
            timeout = min(max(float(args.get("timeout") or ctx.bash_timeout or 120.0), 0.001), MAX_TIMEOUT)
        except (TypeError, ValueError):
            return await self.inner.run(args, ctx)  # the same message as ours
        prepared = await prepare(command, args, ctx)
        editor, sid = self.terminals, self.terminals.session_id()
        started = time.monotonic()
        try:
            created = await editor.client.create_terminal(
                session_id=sid,
                command=prepared.argv[0],
                args=prepared.argv[1:],
                cwd=str(ctx.workspace),
                env=[s.EnvVariable(name=k, value=v) for k, v in ENV_OVERRIDES.items()],
                output_byte_limit=ctx.max_output_bytes,
            )
        except Exception as exc:
            log.info("terminal/create failed", exc_info=True)
            return ToolOutput.error(f"the editor could not start the command: {one_line(exc, 200)}")
        terminal_id = created.terminal_id
        editor.by_call[ctx.call_id] = terminal_id
        content = [s.TerminalToolCallContent(type="terminal", terminal_id=terminal_id)]
        await editor.client.session_update(
            sid, update_tool_call(ctx.call_id, status="in_progress", content=content)
        )
        try:
            timed_out = False
            try:
                await asyncio.wait_for(
                    editor.client.wait_for_terminal_exit(session_id=sid, terminal_id=terminal_id), timeout
                )
            except TimeoutError:
                timed_out = True
                await editor.client.kill_terminal(session_id=sid, terminal_id=terminal_id)
            out = await editor.client.terminal_output(session_id=sid, terminal_id=terminal_id)
        except BaseException:
            # Cancelled (session/cancel, the editor closing) or the editor failed: nothing may run on.
            try:
                await asyncio.shield(asyncio.wait_for(editor.end(terminal_id, kill=True), END_GRACE))
            except (TimeoutError, asyncio.CancelledError):
                log.info("terminal %s not confirmed ended", terminal_id)
            raise
        await editor.end(terminal_id, kill=False)
        return await _result(command, prepared, out, ctx, time.monotonic() - started, timeout, timed_out)


async def _result(
    command: str,
    prepared: Prepared,
    out: s.TerminalOutputResponse,
    ctx: ToolContext,
    duration: float,
    timeout: float,
    timed_out: bool,
) -> ToolOutput:
    """The same output our own bash returns: whole in the store, a status line, the meta."""

    data = out.output.encode("utf-8", "replace")
    if prepared.scan is not None:
        prepared.scan.feed(data)
    ref, text = None, ""
    if ctx.offload is not None:
        ref = await ctx.offload("bash", _once(data))
    else:
        kept = HeadTail(ctx.max_message_bytes)
        kept.add(data)
        text = kept.text()
    exit_status = out.exit_status
    code = exit_status.exit_code if exit_status is not None else None
    took = f"{duration:.1f} s" if duration < 100 else f"{duration:.0f} s"
    if timed_out:
        status, summary = f"[timed out after {timeout:g} s; the command was killed]", f"timed out · {took}"
    elif code is None and exit_status is not None and exit_status.signal:
        status, summary = f"[killed by {exit_status.signal} · {took}]", f"{exit_status.signal} · {took}"
    else:
        status, summary = f"[exit code {code} · {took}]", f"exit {code} · {took}"
    if out.truncated:
        status += f" [the editor kept only the last {ctx.max_output_bytes} bytes of output]"
    if prepared.env_note:
        status = f"{status} {prepared.env_note}"
    sandbox = prepared.sandbox
    if sandbox is not None:
        hint = _hint(sandbox, prepared.scan, code, timed_out)
        status, summary = await sandbox.closing_lines(status, summary, prepared.missing, hint)
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
            "output_capped": bool(out.truncated),
            "output_bytes": len(data),
            "status_line": status,
            "sandbox": sandbox.mode if sandbox is not None else "off",
            "terminal": "editor",
        },
    )


def _hint(sandbox: Sandbox, scan: BlockScan | None, code: int | None, timed_out: bool) -> str | None:
    if scan is None or timed_out:
        return None
    return sandbox.blocked_hint(scan, code if code is not None else -signal.SIGKILL)


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def use_editor_terminal(registry: ToolRegistry, terminals: EditorTerminals) -> None:
    """Run one session's foreground `bash` commands in the editor's terminal."""
    tool = registry.get("bash")
    if tool is not None:
        registry.register(TerminalBash(tool, terminals))
