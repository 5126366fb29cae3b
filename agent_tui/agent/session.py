"""One conversation with the agent: the turn loop of the design, as an async stream of events.

Each step builds the prompt, measures the budget, compacts when a threshold says so, streams the
model's reply, runs its tool calls and persists every new message. The TUI and headless mode both
consume `run_turn`'s events; neither reaches inside.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.agent import subagent_calls, wire
from agent_tui.agent.compactor import Compactor
from agent_tui.agent.history import SessionHistory
from agent_tui.agent.lost_writes import STORAGE
from agent_tui.agent.thinking import ThinkingTrace
from agent_tui.agent.tool_runner import ToolRunner
from agent_tui.context.budget import BudgetMeter, ContextBudget
from agent_tui.llm.cost import cost_of, prices_for
from agent_tui.llm.errors import LLMError
from agent_tui.llm.stream import (
    ReasoningChunk,
    StreamDone,
    TextChunk,
    ThinkingReady,
    ToolCallsReady,
    UsageChunk,
)
from agent_tui.messages import Message, TokenUsage, ToolCall, assistant, tool_result, user
from agent_tui.models import reply_reserve

if TYPE_CHECKING:
    from agent_tui.agent.prompting import PromptAssembler
    from agent_tui.agent.rewind import RewindPoint, RewindReport, Scope
    from agent_tui.config import Config
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.llm.provider import Provider
    from agent_tui.models import ModelLimits
    from agent_tui.reasoning import ReasoningSettings
    from agent_tui.store import Store
    from agent_tui.tools.background import BackgroundShells

log = logging.getLogger(__name__)

INTERRUPTED = "[interrupted by the user]"
TRUNCATED_CALL = (
    "[not run: the reply was cut off at the output limit ({limit} tokens) while writing this "
    "call, so its arguments are incomplete JSON. Make a smaller change per call (e.g. write a "
    "large file in parts, or use edit_file), or raise [model] max_output_tokens.]"
)


class AgentSession(SessionHistory):
    """A session's history, budget and loop. Create through `agent_tui.factory`."""

    def __init__(
        self,
        *,
        session_id: str,
        title: str | None,
        config: Config,
        provider: Provider,
        limits: ModelLimits,
        meter: BudgetMeter,
        prompts: PromptAssembler,
        runner: ToolRunner,
        compactor: Compactor,
        store: Store | None,
        history: list[Message],
        workspace: Path,
        hooks: HookRunner | None = None,
    ) -> None:
        self.session_id = session_id
        self.title = title
        self.config = config
        self.provider = provider
        self.model = provider.model
        self.limits = limits
        self.meter = meter
        self.prompts = prompts
        self.runner = runner
        self.compactor = compactor
        self.store = store
        self.history = history
        self.workspace = workspace
        self.last_budget: ContextBudget | None = None
        self.busy = False
        self.usage_total = TokenUsage()
        self.cost_total: float | None = 0.0
        """USD spent in this session by this process; None once any reply's price is unknown."""
        self.turns = 0
        self._request_parts: tuple[list[Any], list[dict[str, Any]]] = ([], [])
        self.wire = wire.WireView()
        """What the provider gets: the history made wire-valid (agent/wire.py)."""
        self.scan = wire.Scan()
        self._unsaid: list[str] = []  # repairs made while no turn ran, said at the next one
        self._lost_writes: list[str] = []  # writes the store failed (agent/lost_writes.py)
        self.hooks = hooks
        """The configured hooks (agent_tui/hooks/); None when there are none."""
        self._hooks_started = False  # SessionStart fires before the first prompt
        self.background: BackgroundShells | None = None
        """Its background commands (tools/background.py); they end with the session."""

    # -- measuring -------------------------------------------------------------------------

    def measure(self, *, with_status: bool = True) -> ContextBudget:
        """The budget of the next request (no I/O)."""
        self._reserve_thinking()
        # Two passes: the status note depends on how full the window is without it.
        tools = self.prompts.tool_schemas(self.history)
        sections = self.prompts.sections(None)
        budget = self.meter.measure(self.history, sections, tools)
        if with_status and budget.should_warn:
            sections = self.prompts.sections(budget)
            budget = self.meter.measure(self.history, sections, tools)
        self._request_parts = (sections, tools)
        self.last_budget = budget
        return budget

    def _reserve_thinking(self) -> None:
        """The reply reserve holds the thinking budget on top of the answer (the request's
        max_tokens grows by it), capped so half the window stays for the prompt; the thinking
        blocks the request sends back count in the conversation."""
        window, answer = self.limits.context_window, self.limits.max_output_tokens
        self.provider.max_thinking = max(window // 2 - answer, 0)
        thinking = self.provider.thinking_reserve
        if answer + thinking != self.meter.max_output_tokens or thinking != self.meter.thinking_reserve:
            self.meter.resize(window, answer + thinking, thinking)
        self.meter.counts_thinking = self.provider.takes_thinking_blocks

    def _learn_window(self, reported: int | None) -> str | None:
        """The provider's window is smaller than configured: believe the provider from now on."""
        if not reported or reported >= self.limits.context_window:
            return None
        old = self.limits.context_window
        reserve = min(self.limits.max_output_tokens, reply_reserve(reported, None, None))
        self.limits = replace(self.limits, context_window=reported, max_output_tokens=reserve)
        self.meter.resize(reported, reserve)
        return (
            f"The provider's window is {reported:,} tokens, not {old:,}; using "
            f"{reported:,} from now on (set [model] context_window to avoid this). "
            "Compacting and retrying once."
        )

    def _add_cost(self, usage: TokenUsage) -> float | None:
        cost = cost_of(usage, prices_for(self.model, self.config.model.api_base))
        self.cost_total = None if cost is None or self.cost_total is None else (self.cost_total + cost)
        return cost

    @property
    def request_parts(self) -> tuple[list[Any], list[dict[str, Any]]]:
        """The prompt sections and tool schemas of the last measured request."""
        return self._request_parts

    async def _persist_cost(self, cost: float | None) -> None:
        if self.store is None:
            return
        try:
            await self.store.sessions.add_cost(self.session_id, cost)
        except Exception:
            log.exception("could not record the reply's cost")

    # -- compaction ------------------------------------------------------------------------

    async def compact(
        self, instructions: str | None = None, reason: ev.CompactionReason = "forced"
    ) -> AsyncIterator[ev.AgentEvent]:
        """Force a compaction now (`/compact`, `sessions compact`, `run --compact`). The session
        is busy meanwhile."""
        self.busy = True
        try:
            async for event in self._fit_oversize():
                yield event
            async for event in self.compactor.run(self, reason=reason, instructions=instructions, force=True):
                yield event
        finally:
            self.busy = False

    async def _thresholds(self) -> AsyncIterator[ev.AgentEvent]:
        """Trim tool outputs past their budget at once; compact at the trigger; block at the top."""
        async for event in self.compactor.trim_tool_outputs(self):
            yield event
        budget = self.measure()
        if budget.exceeds:
            async for event in self._fit_oversize():
                yield event
            budget = self.measure()
        if budget.is_blocked and self.config.compaction.enabled:
            yield ev.Blocked(budget)
            async for event in self.compactor.run(self, reason="blocked", force=True):
                yield event
        elif (
            budget.should_compact
            and self.config.compaction.enabled
            and self.config.compaction.auto
            and self.compactor.may_auto_compact(budget)
        ):
            async for event in self.compactor.run(self, reason="auto"):
                yield event

    # -- the turn --------------------------------------------------------------------------

    async def run_turn(self, prompt: str, *, as_is: bool = False) -> AsyncIterator[ev.AgentEvent]:
        """One user message and everything the agent does until it answers. `as_is` sends the
        prompt exactly as given, with no `@path` attachments and no offload of a long one (the
        autonomous loop builds its own bounded prompt) — unless it cannot fit the window at all."""
        self.busy = True
        self.turns += 1
        text_parts: list[str] = []
        refs: list[Any] = []
        pending: Message | None = None  # assistant message whose tool results are not all in
        answered: set[str] = set()
        try:
            yield ev.TurnStarted(self.session_id, prompt)
            for note in await self.repair():
                yield ev.Notice(note)
            hook_context = ""
            if self.hooks is not None:
                from agent_tui.hooks import turn_hooks

                gate = await turn_hooks.before_prompt(
                    self.hooks, prompt, first=not self._hooks_started, resumed=bool(self.history)
                )
                self._hooks_started = True
                for event in self.hooks.drain():
                    yield event
                if gate.blocked is not None:
                    yield ev.Notice(gate.blocked)
                    yield ev.TurnFinished("", stop_reason="blocked")
                    return
                hook_context = gate.context
            prepared = await self._prepare(prompt, as_is)
            refs.extend(prepared.refs)
            for note in prepared.notes:
                yield ev.Notice(note)
            sent = user(prepared.text + hook_context)
            seqs = await self._add(sent)
            if seqs and self.runner.checkpointer is not None:
                self.runner.checkpointer.start_turn(seqs[0])  # edits of this turn undo together
            stop_reason: ev.StopReason = "done"
            step = 0
            replied = False  # an assistant message of this turn is in the history
            retried_overflow = False
            stop_hook_active = False
            while True:
                async for event in self._thresholds():
                    yield event
                if step >= self.config.agent.max_steps:
                    stop_reason = "max_steps"
                    yield ev.Notice(
                        f"Stopped after {step} model calls in one turn "
                        "([agent] max_steps); send a message to continue."
                    )
                    break
                step += 1
                for note in await self.repair():
                    yield ev.Notice(note)
                budget = self.measure()
                yield ev.BudgetMeasured(budget)
                yield ev.StepStarted(step)
                text_parts = []
                calls: tuple[ToolCall, ...] = ()
                finish: str | None = None
                thinking = ThinkingTrace()
                try:
                    async for chunk in self._stream():
                        match chunk:
                            case TextChunk(text=text):
                                thinking.answered()
                                text_parts.append(text)
                                yield ev.TextDelta(text)
                            case ReasoningChunk(text=text):
                                thinking.delta(text)
                                yield ev.ReasoningDelta(text)
                            case ThinkingReady(blocks=blocks):
                                thinking.blocks_ready(blocks)
                            case ToolCallsReady(calls=ready):
                                thinking.answered()
                                calls = ready
                            case StreamDone(finish_reason=reason):
                                finish = reason
                            case UsageChunk(usage=usage):
                                thinking.reported(usage.reasoning)
                                cost = self._add_cost(usage)
                                await self._persist_cost(cost)
                                yield ev.UsageReported(usage, self.model, cost, self.cost_total)
                            case ev.Notice():
                                yield chunk
                except LLMError as exc:
                    if exc.kind == "context_length" and not retried_overflow and not text_parts:
                        retried_overflow = True
                        notice = self._learn_window(exc.reported_window)
                        yield ev.Notice(
                            notice
                            or "The provider says the prompt is too long; compacting and retrying once."
                        )
                        async for event in self.compactor.run(self, reason="context_length", force=True):
                            yield event
                        step -= 1
                        continue
                    yield ev.ErrorEvent(str(exc), exc.kind)
                    if text_parts:  # kept, and marked so neither reader takes it for a whole reply
                        await self._add(assistant("".join(text_parts) + f"\n\n[incomplete: {exc}]"))
                    elif not replied:
                        # Not sent: the TUI puts the text back in the input; a retry sends it once.
                        await self._unsend(sent, str(exc))
                    stop_reason = "error"
                    break
                reply = assistant("".join(text_parts) or None, calls)
                reasoning = thinking.result(self.meter.counter.count_text)
                if reasoning is not None:
                    reply = replace(reply, reasoning=reasoning)
                    yield ev.ReasoningFinished(reasoning.tokens, reasoning.duration)
                replied = True
                if not calls:
                    await self._add(reply if reply.content else replace(reply, content=""))
                    if self.hooks is not None:
                        from agent_tui.hooks import turn_hooks

                        again = await turn_hooks.stop(self.hooks, active=stop_hook_active)
                        for event in self.hooks.drain():
                            yield event
                        if again is not None:  # a Stop hook sends the agent back to work
                            stop_hook_active = True
                            await self._add(user(again))
                            continue
                    break
                pending, answered = reply, set()
                await self._add(reply)
                # Paged readers must fit what is left of the window, not just their byte cap.
                room = max(0, self.measure(with_status=False).remaining) // max(1, len(calls))
                # compact_context goes last, so the calls it keeps are all answered already.
                ordered = sorted(calls, key=lambda c: c.name == "compact_context")
                parallel = subagent_calls.start_parallel(self.runner, ordered, room)
                for call in parallel:  # several task calls run at once: all start now
                    yield ev.ToolCallStarted(call)
                for call in ordered:
                    if call not in parallel:
                        yield ev.ToolCallStarted(call)
                    if finish == "length" and not wire.arguments_complete(call):
                        text = TRUNCATED_CALL.format(limit=f"{self.limits.max_output_tokens:,}")
                        await self._add(tool_result(call, text))
                        answered.add(call.id)
                        yield ev.ToolCallFinished(call, None, True, "cut off: not run", text, 0.0)
                        yield ev.Notice(
                            f"The model's reply was cut off at the output limit inside a {call.name} "
                            "call; the call was not run and the model was told why."
                        )
                        continue
                    if call.name == "compact_context":
                        async for event in self.compactor.run_as_tool(self, call):
                            yield event
                        answered.add(call.id)
                        continue
                    async for item in subagent_calls.run_streaming(self.runner, call, room):
                        if isinstance(item, ev.AgentEvent):
                            yield item  # a sub-agent's, while the call runs
                        else:
                            run = item
                    if self.hooks is not None:
                        for event in self.hooks.drain():
                            yield event
                    await self._add(run.message)
                    answered.add(call.id)
                    if run.ref is not None:
                        refs.append(run.ref)
                    yield ev.ToolCallFinished(
                        call, run.ref, run.is_error, run.summary, run.message.content or "", run.duration
                    )
                    if run.notice:
                        yield ev.Notice(run.notice)
                    if run.denied and self.config.tools.deny_ends_turn:
                        stop_reason = "denied"
                        break
                    if run.stop is not None:  # a hook said `continue: false`
                        yield ev.Notice(f"A hook stopped the turn: {run.stop or 'no reason given'}")
                        stop_reason = "hook"
                        break
                await subagent_calls.settle(self.runner)
                if stop_reason in ("denied", "hook"):  # the model waits for the user's direction
                    unrun = [c for c in calls if c.id not in answered]
                    if unrun:
                        await self._add(
                            *(tool_result(c, "[not run: the user denied an earlier call]") for c in unrun)
                        )
                    pending = None
                    break
                pending = None
            async for event in self._thresholds():
                yield event
            self.last_budget = self.measure()
            self.compactor.record_turn(self.turns, self.last_budget)
            yield ev.BudgetMeasured(self.last_budget)
            for lost in self.take_lost_writes():  # a full disk is an error the user sees
                yield ev.ErrorEvent(lost, STORAGE)
            yield ev.TurnFinished("".join(text_parts), stop_reason=stop_reason, refs=tuple(refs))
        except asyncio.CancelledError:
            await self._interrupted(text_parts, pending, answered)
            raise
        finally:
            self.busy = False

    async def close(self) -> None:
        """SessionEnd fires (once), the background commands end, then the lease is given back."""
        await self.end_hooks()
        if self.background is not None:
            await self.background.end_all()
        await super().close()

    async def end_hooks(self, reason: str = "exit") -> list[ev.AgentEvent]:
        """Fire SessionEnd once; returns its runs for a caller still showing events."""
        if self.hooks is None or not self._hooks_started:
            return []
        self._hooks_started = False
        await self.hooks.fire("SessionEnd", {"reason": reason})
        return self.hooks.drain()

    async def add_user_command(self, text: str) -> None:
        """A command the user ran (`!cmd`), with its output's view, as a user message."""
        await self._add(user(text))

    def run_user_command(self, command: str) -> AsyncIterator[ev.AgentEvent]:
        """`!command`: run it for the user, unasked, and let the next turn's model see it."""
        from agent_tui.agent.user_command import run_user_command

        return run_user_command(self, command)

    async def rewind(self, point: RewindPoint, scope: Scope) -> RewindReport:
        """Back to just before an earlier user message (agent/rewind.py)."""
        from agent_tui.agent.rewind import rewind

        return await rewind(self, point, scope)

    def keep_background_of(self, old: AgentSession) -> None:
        """The same session under another model (/model): its background commands go on here
        instead of ending with the old object."""
        shells, fresh = old.background, self.background
        if shells is None or shells is fresh:
            return
        self.background, old.background = shells, None
        self.runner.services = replace(self.runner.services, shells=shells)
        self.prompts.status_sources = [s for s in self.prompts.status_sources if s is not fresh] + [shells]

    # -- what the UI's commands change (public, so no command reaches into the session) ------

    def set_reasoning(self, settings: ReasoningSettings) -> None:
        """/effort: how hard the model thinks, from the next request on."""
        self.provider.reasoning = settings

    async def rename(self, title: str) -> None:
        """/rename: the session's title, stored at once."""
        if self.store is not None:
            await self.store.sessions.rename(self.session_id, title)
        self.title = title

    def grants(self) -> list[tuple[str, str]]:
        """The rules that let a call run unasked, as (rule, `config` or `session`)."""
        return list(self.runner.policy.grants())

    def revoke_rule(self, rule: str) -> bool:
        """Stop `rule` allowing anything from the next call on; False when no rule matched."""
        return self.runner.policy.revoke(rule)

    async def _interrupted(self, text_parts: list[str], pending: Message | None, answered: set[str]) -> None:
        """Leave the session consistent: partial text saved and marked, every call answered."""
        closing: list[Message] = []
        await asyncio.shield(subagent_calls.settle(self.runner))  # children end first, saying so
        if pending is not None:
            for call in pending.tool_calls:
                if call.id not in answered:
                    text = subagent_calls.cancelled_text(self.runner, call.id)
                    closing.append(tool_result(call, text or "[cancelled by the user before it finished]"))
        elif text_parts:
            closing.append(assistant("".join(text_parts) + f"\n\n{INTERRUPTED}"))
        closing.append(Message(role="user", content=INTERRUPTED, kind="note"))
        await asyncio.shield(self._add(*closing))

    async def _stream(self) -> AsyncIterator[Any]:
        """The provider stream for the current history, recording usage against the estimate."""
        sections, tools = self._request_parts
        self.prompts.send_thinking = self.provider.takes_thinking_blocks
        request = self.prompts.request(self.wire(self.history), sections, tools)
        for notice in request.notices:  # a degraded prompt part, an MCP server gone
            yield ev.Notice(notice)
        async for chunk in self.provider.stream(
            request.messages,
            tools=request.tools or None,
            max_tokens=self.limits.max_output_tokens,
        ):
            while self.provider.notices:  # how the request went out (reasoning not sent, …)
                yield ev.Notice(self.provider.notices.pop(0))
            if isinstance(chunk, UsageChunk):
                usage = chunk.usage
                self.usage_total = self.usage_total + usage
                self.meter.record_usage(usage.prompt_tokens, self.history, cached=usage.cache_read)
            yield chunk
