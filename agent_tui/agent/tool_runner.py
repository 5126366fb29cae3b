"""Runs one tool call the way the loop needs it: ask, run, store whole, and decide what the model sees.

Every output is stored whole in the blob store. Paged readers (read_file, read_result) return the page
they were asked for; for other tools the model sees the output itself when it is small, and a head+tail
view with a ref when it is past the offload threshold. If the store is down, the output stays inline,
cut to a head+tail view — degraded, never broken.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.agent.live_output import LiveOutput
from agent_tui.agent.lost_writes import InlineFallback
from agent_tui.agent.undo import Checkpointer
from agent_tui.base import tool_decl
from agent_tui.base.messages import Message, Outcome, ResultRef, ToolCall, tool_result
from agent_tui.base.units import human_size, lines
from agent_tui.base.utf8 import clean_text
from agent_tui.context.views import inline_view
from agent_tui.hooks import tool_hooks
from agent_tui.hooks.approval import deciding
from agent_tui.hooks.tool_hooks import post_tool_use
from agent_tui.tools.base import ToolContext, ToolOutput, ToolServices
from agent_tui.tools.files import cannot_apply
from agent_tui.tools.workspace import confine, resolve_path

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.store import Store
    from agent_tui.tools.diagnostics import LanguageServers
    from agent_tui.tools.permissions import PermissionPolicy
    from agent_tui.tools.registry import ToolRegistry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolRun:
    """What one call produced: the message for the history and what the UI shows."""

    message: Message
    ref: ResultRef | None
    is_error: bool
    summary: str
    duration: float
    meta: dict[str, Any]
    notice: str | None = None
    """Something the user must hear (a denial and how to allow it)."""
    denied: bool = False
    """The user (or the policy) refused the call: it never ran."""
    stop: str | None = None
    """A hook said `continue: false`: the turn ends after this call (its stopReason)."""
    paged: bool = False
    """A paged reader's page: its line says which lines it read, the chat shows none of them."""

    @property
    def display(self) -> str:
        """What the chat shows under the call's line: an edit's diff, else the output's view."""
        if self.paged or self.denied:
            return ""
        diff = self.meta.get("diff")
        return diff if isinstance(diff, str) and diff else (self.message.content or "")

    @property
    def outcome(self) -> Outcome:
        """How the call ended, as its result message records it."""
        return self.message.outcome or ("error" if self.is_error else "ok")


async def _cannot_apply(tool: str, args: dict[str, Any], workspace: Path) -> str | None:
    """A write/edit that cannot apply fails before anyone is asked (see files.cannot_apply)."""
    if not tool_decl.checkpointed(tool):
        return None
    import asyncio

    return await asyncio.to_thread(cannot_apply, tool, args, workspace)


def _clean_output(output: ToolOutput) -> ToolOutput:
    """Valid UTF-8 only from here on: a file name with an undecodable byte (surrogates) could
    neither be stored nor sent."""
    text, summary = clean_text(output.text), clean_text(output.summary)
    if text is output.text and summary is output.summary:
        return output
    return replace(output, text=text, summary=summary)


class ToolRunner:
    def __init__(
        self,
        *,
        registry: ToolRegistry,
        policy: PermissionPolicy,
        store: Store | None,
        config: Config,
        workspace: Path,
        session_id: str,
        services: ToolServices,
        hooks: HookRunner | None = None,
    ) -> None:
        self.registry = registry
        self.policy = policy
        self.store = store
        self.config = config
        self.workspace = workspace
        self.session_id = session_id
        self.services = services
        self.checkpointer = Checkpointer(store, session_id) if store is not None else None
        self._lost_writes: list[str] = []
        self._fallbacks: dict[str, InlineFallback] = {}
        self.hooks = hooks
        """PreToolUse / PostToolUse around each call (agent_tui/hooks/tool_hooks.py)."""
        self.live = LiveOutput()
        """Running calls' output on its way to the chat while they run."""

    def turn_starts_at(self, seqs: list[int]) -> None:
        """The turn's message is stored at `seqs`: its edits undo together, back to there."""
        if seqs and self.checkpointer is not None:
            self.checkpointer.start_turn(seqs[0])

    def take_lost_writes(self) -> list[str]:
        """Outputs the store failed to save since last asked (agent/lost_writes.py)."""
        lost, self._lost_writes = self._lost_writes, []
        return lost

    async def _offload(self, tool_name: str, call_id: str, content: Any) -> ResultRef:
        assert self.store is not None
        return await self.store.results.offload(self.session_id, tool_name, call_id, content)

    def _context(self, call: ToolCall, room_tokens: int | None) -> ToolContext:
        out = self.config.tool_output
        offload = None
        if self.store is not None:

            async def store_it(tool_name: str, content: Any, _id: str = call.id) -> ResultRef:
                return await self._offload(tool_name, _id, content)

            # A streamed output the store cannot take (full disk) still reaches the model.
            offload = self._fallbacks[call.id] = InlineFallback(store_it, self.page_bytes(room_tokens))

        return ToolContext(
            workspace=self.workspace,
            session_id=self.session_id,
            call_id=call.id,
            offload=offload,
            max_message_bytes=self.page_bytes(room_tokens),
            max_line_length=out.max_line_length,
            bash_timeout=self.config.tools.bash_timeout,
            search_timeout=self.config.tools.search_timeout,
            max_output_bytes=self.config.tools.max_output_bytes,
            services=self.services,
            on_output=self.live.feeder(call.id),
        )

    def page_bytes(self, room_tokens: int | None = None) -> int:
        """What a paged reader may return: max_message_bytes, but never more than half of the
        room left in the window (at ~3 bytes a token), so one read_file of a big log cannot
        overflow a small window. At least 2 KB, so a read always makes progress."""
        limit = self.config.tool_output.max_message_bytes
        if room_tokens is not None:
            limit = min(limit, max(2048, room_tokens * 3 // 2))
        return limit

    async def run(self, call: ToolCall, *, room_tokens: int | None = None, ask: bool = True) -> ToolRun:
        """Ask, run and store one call. `room_tokens`: what is left of the window for this
        call's result (paged readers return no more than fits); None for no window limit.
        `ask=False`: the user typed the command (`!cmd`), so no one is asked."""
        started = time.monotonic()
        # Checked and coerced once: the hooks and the policy see the very arguments the tool gets.
        prepared = self.registry.prepare(call)
        if isinstance(prepared, ToolOutput):
            return await self._store_and_view(call, _clean_output(prepared), started)
        tool, args = prepared
        permission = None
        if self.hooks is not None:
            hooked, pre = await tool_hooks.pre_tool_use(self.hooks, call, tool.spec)
            if pre.blocked:  # never runs; the model reads why, the user sees the hook's line
                text = tool_hooks.BLOCKED.format(reason=pre.reason)
                run = self._finish(
                    call, ToolOutput(text=text, is_error=True, summary="blocked by hook"), started
                )
                return replace(run, stop=pre.stop)  # the hook's own line shows the reason
            permission = pre.permission
            if hooked is not call:  # `updatedInput`: checked and coerced again, as it will run
                call = hooked
                prepared = self.registry.prepare(call)
                if isinstance(prepared, ToolOutput):
                    return await self._store_and_view(call, _clean_output(prepared), started)
                tool, args = prepared
        if tool.spec.mutates and ask and (failure := await _cannot_apply(call.name, args, self.workspace)):
            return self._finish(call, ToolOutput.error(failure), started)  # nothing to approve
        checked = ask and self.policy.may_ask(tool.spec.mutates)  # deny/ask rules cover reads too
        if checked or permission == "ask":  # ask=False: the user's own `!cmd`
            with deciding(permission) as decided:
                allowed, message, planning, by_rule = True, "", False, False
                if checked:
                    verdict = await self.policy.decide(call.name, args, tool.spec, self.workspace)
                    allowed, message = verdict.allowed, verdict.detail
                    planning = verdict.reason == "plan_mode"
                    by_rule = verdict.reason == "denied_by_rule"
                if allowed and permission == "ask" and not decided.asked:
                    allowed, message = await tool_hooks.ask_anyway(self.policy, call, self.workspace)
            # The tool's time starts once it may run: the user's think time is not its time.
            started = time.monotonic()
            if not allowed and planning:  # plan mode: refused unasked; the turn goes on to the plan
                return self._finish(
                    call, ToolOutput(text=message, is_error=True, summary="plan mode"), started
                )
            if not allowed:
                run = self._finish(call, ToolOutput(text=message, is_error=True, summary="denied"), started)
                # A deny rule answered for the user: the model is told and goes on (Claude Code's
                # way); a refusal the user gave ends the turn when deny_ends_turn says so.
                return replace(
                    run, message=replace(run.message, outcome="denied"), notice=message, denied=not by_rule
                )
        target, before_ref = await self._checkpoint_before(call, args)
        try:
            output = await self.registry.run(call, self._context(call, room_tokens), prepared)
        finally:
            fallback = self._fallbacks.pop(call.id, None)
        if fallback is not None and fallback.text is not None:
            output = replace(output, ref=None, text=fallback.text)
            self._lost_writes.append(fallback.problem or "a tool output could not be saved")
        output = _clean_output(output)
        servers = self.services.diagnostics
        if servers is not None and not output.is_error and tool_decl.checkpointed(call.name):
            output = await self._with_diagnostics(servers, call, args, output, target)
        if target is not None and not output.is_error and self.checkpointer is not None:
            try:
                await self.checkpointer.after(target, before_ref)
            except Exception:
                log.exception("could not record the checkpoint of %s", target)
        run = await self._store_and_view(call, output, started)
        if self.hooks is not None:
            content, post = await post_tool_use(self.hooks, call, run.message.content or "", run.is_error)
            if post.ran:
                run = replace(run, message=replace(run.message, content=content), stop=post.stop)
        return run

    async def _with_diagnostics(
        self,
        servers: LanguageServers,
        call: ToolCall,
        args: dict[str, Any],
        output: ToolOutput,
        target: Path | None,
    ) -> ToolOutput:
        """The edited file's language server says what the new text breaks (tools/diagnostics.py)."""
        try:
            edited = target or resolve_path(self.workspace, tool_decl.path_of(call.name, args))
        except Exception:  # noqa: BLE001 - the edit succeeded; only its diagnostics are skipped
            return output
        found = await servers.after_edit(edited)
        return replace(output, text=f"{output.text.rstrip()}\n{found}") if found else output

    async def _checkpoint_before(
        self, call: ToolCall, args: dict[str, Any]
    ) -> tuple[Path | None, str | None]:
        """For an edit: the file it targets and the blob of its content before the edit."""
        if self.checkpointer is None or not tool_decl.checkpointed(call.name):
            return None, None
        try:
            target = confine(self.workspace, tool_decl.path_of(call.name, args))
            return target, await self.checkpointer.before(call.name, target, call.id)
        except Exception:  # noqa: BLE001 - a bad path fails in the tool itself, with its message
            return None, None

    async def _store_and_view(self, call: ToolCall, output: ToolOutput, started: float) -> ToolRun:
        spec = self.registry.get(call.name)
        paged = bool(spec and spec.spec.paged)
        ref = output.ref
        text = output.text
        started_in_background = output.meta.get("output_ref") is not None  # its ref is the output's
        if (
            ref is None
            and self.store is not None
            # A tool that reads the store declares its output not stored: storing it again
            # would only duplicate blobs.
            and tool_decl.stored(call.name)
            and not started_in_background
        ):
            try:
                ref = await self._offload(call.name, call.id, text)
            except Exception as exc:
                log.exception("offloading %s output failed; keeping it inline", call.name)
                self._lost_writes.append(
                    f"the output of {call.name} could not be saved ({exc}); the model got it inline"
                )
        threshold = self.config.agent.result_offload_threshold
        width = self.config.tool_output.max_line_length
        if output.ref is not None:
            # Streamed into the store by the tool: the view comes from there.
            text = await self.store.results.view(output.ref, threshold, width) if self.store else text
        elif not paged and (ref.byte_size if ref else len(text.encode("utf-8", "replace"))) > threshold:
            # Built from the text in hand, not read back: the same view the store would build
            # (tests/test_offload_deferred.py), without waiting on the store's connection.
            ref_id, size = (ref.id, ref.byte_size) if ref is not None else (None, None)
            text = inline_view(text, threshold, width, call.name, ref_id, size)
        status = output.meta.get("status_line")
        if status:
            text = f"{text.rstrip()}\n{status}" if text.strip() else status
        return replace(self._finish(call, output, started, text=text, ref=ref), paged=paged)

    def _finish(
        self,
        call: ToolCall,
        output: ToolOutput,
        started: float,
        *,
        text: str | None = None,
        ref: ResultRef | None = None,
    ) -> ToolRun:
        duration = time.monotonic() - started
        content = text if text is not None else output.text
        parts = [output.summary] if output.summary else []
        if ref is not None and "diff" in output.meta:
            # What is stored is the tool's one-line report: its size would read as the file's.
            parts.append(f"ref {ref.id}")
        elif ref is not None:
            parts += [human_size(ref.byte_size), lines(ref.line_count), f"ref {ref.id}"]
        return ToolRun(
            message=tool_result(
                call, content or "(no output)", ref, outcome="error" if output.is_error else "ok"
            ),
            ref=ref,
            is_error=output.is_error,
            summary=" · ".join(parts),
            duration=duration,
            meta=output.meta,
        )
