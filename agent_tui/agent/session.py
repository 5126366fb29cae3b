"""One conversation with the agent: the turn loop of the design, as an async stream of events.

A turn is a loop over one step function (agent/step.py; agent/turn.py names what a step ends
in). Before each step the thresholds may compact (agent/session_compaction.py: the compactor gets
values and hands back an outcome the session adopts); the step streams the model's reply
(agent/reply.py), runs its tool calls (agent/step_calls.py) and persists every new message
through the history the session owns (agent/history.py). The TUI and headless mode both consume
`run_turn`'s events; neither reaches inside.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from agent_tui.agent import events as ev
from agent_tui.agent import image_attach, rewind, subagent_calls, user_command, web_search, wire
from agent_tui.agent import reply as model_call
from agent_tui.agent.compactor import Compactor
from agent_tui.agent.history import SessionHistory
from agent_tui.agent.lost_writes import STORAGE
from agent_tui.agent.reply_cost import reply_cost
from agent_tui.agent.session_compaction import SessionCompaction
from agent_tui.agent.side_keeper import SideKeeper
from agent_tui.agent.step import step
from agent_tui.agent.tool_runner import ToolRunner
from agent_tui.agent.turn import NextStep, RetryStep, StepOutcome, TurnOver, TurnState
from agent_tui.agent.window import keep_calibration, preflight, reserve_thinking
from agent_tui.base.messages import Message, TokenUsage, assistant, tool_result, user
from agent_tui.base.titles import title_from
from agent_tui.context.budget import BudgetMeter, ContextBudget
from agent_tui.hooks import turn_hooks
from agent_tui.llm.stream import UsageChunk

if TYPE_CHECKING:
    from agent_tui.agent.prompting import PromptAssembler
    from agent_tui.agent.rewind import RewindPoint, RewindReport, Scope
    from agent_tui.agent.subagents import Subagents
    from agent_tui.base.reasoning import ReasoningSettings
    from agent_tui.config import Config
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.llm.models import ModelLimits
    from agent_tui.llm.provider import Provider
    from agent_tui.policy.permission_modes import PermissionMode
    from agent_tui.policy.permission_rules import AllowRule, Tier
    from agent_tui.store import Store
    from agent_tui.tools.background import BackgroundShells

log = logging.getLogger(__name__)

INTERRUPTED = "[interrupted by the user]"


class AgentSession:
    """A session's history, budget and loop. Create through `agent_tui.compose.factory`."""

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
        background: BackgroundShells | None = None,
        subagents: Subagents | None = None,
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
        self.workspace = workspace
        self.record = SessionHistory(
            session_id=session_id, meter=meter, store=store, messages=history, workspace=workspace
        )
        """The history and its transcript (agent/history.py): everything that writes them."""
        self.compaction = SessionCompaction(
            compactor,
            self.record,
            self.measure,
            lambda: self._request_parts,
            hooks=hooks,
            store=store,
            session_id=session_id,
        )
        self.last_budget: ContextBudget | None = None
        self.busy = False
        self.usage_total = TokenUsage()
        self.cost_total: float | None = 0.0
        """USD spent in this session by this process; None once any reply's price is unknown."""
        self.turns = 0
        self._request_parts: tuple[list[Any], list[dict[str, Any]]] = ([], [])
        self.wire = wire.WireView()
        """What the provider gets: the history made wire-valid (agent/wire.py)."""
        self.hooks = hooks  # the configured hooks (agent_tui/hooks/); None when there are none
        self._hooks_started = False  # SessionStart fires before the first prompt
        self.background = background  # its commands (tools/background.py) end with the session
        self.side = SideKeeper(runner.services.side, store, session_id, meter, config, runner.policy)
        """The task list and pins, beside the history (agent/side_keeper.py)."""
        prompts.side = self.side.state
        if subagents is not None:  # the manager's children are this session's
            subagents.adopt(self)

    @property
    def mode(self) -> PermissionMode:
        """The permission mode Shift+Tab cycles (permission_modes.py)."""
        return self.runner.policy.mode

    def set_mode(self, mode: PermissionMode) -> None:
        self.side.set_mode(mode)

    @property
    def history(self) -> list[Message]:
        """The live history (what the next request is made of)."""
        return self.record.messages

    @history.setter
    def history(self, messages: list[Message]) -> None:
        self.record.messages = messages

    @property
    def shown_title(self) -> str | None:
        """The title the store gives it (base/titles.py): the /rename, else the first request."""
        return self.title or title_from(self.history)

    # -- measuring -------------------------------------------------------------------------

    def measure(self, *, with_status: bool = True) -> ContextBudget:
        """The budget of the next request (no I/O)."""
        reserve_thinking(self.limits, self.provider, self.meter)
        self.meter.pin_budget = self.side.fit_window(max(self.meter.total - self.meter.max_output_tokens, 1))
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

    @property
    def request_parts(self) -> tuple[list[Any], list[dict[str, Any]]]:
        """The prompt sections and tool schemas of the last measured request."""
        return self._request_parts

    async def account_usage(self, usage: TokenUsage) -> ev.AgentEvent:
        """A reply's usage: counted, priced, recorded; the event that reports it."""
        cost = reply_cost(self.config.model, self.model, usage)
        self.cost_total = None if cost is None or self.cost_total is None else (self.cost_total + cost)
        if self.store is not None:
            try:
                await self.store.sessions.add_cost(self.session_id, cost)
            except Exception:
                log.exception("could not record the reply's cost")
        return ev.UsageReported(usage, self.model, cost, self.cost_total)

    # -- the history (agent/history.py) ------------------------------------------------------

    async def add_note(self, text: str) -> None:
        """Tell the model something the user did outside a turn (e.g. /undo), in the history."""
        await self.record.add_note(text)

    async def add_user_command(self, text: str) -> None:
        """A command the user ran (`!cmd`), with its output's view, as a user message."""
        await self.record.add(user(text))

    async def adopt_history(
        self, history: Sequence[Message], *, persist: Sequence[Message] = (), snapshot: bool = False
    ) -> None:
        """Replace the live history; every count derived from it is rebuilt."""
        await self.record.adopt(history, persist=persist, snapshot=snapshot)

    async def save_snapshot(self) -> None:
        """Make the live history what resume loads."""
        await self.record.save_snapshot()

    async def repair(self) -> list[str]:
        """Make the history sendable (see SessionHistory.repair); what to tell the user."""
        return await self.record.repair(in_turn=self.busy)

    def tell_later(self, notes: Sequence[str]) -> None:
        """Say these to the user at the start of the next turn."""
        self.record.unsaid.extend(notes)

    def take_lost_writes(self) -> list[str]:
        """What the store failed to save since last asked (messages, tool outputs), one line each."""
        return [*self.record.take_lost_writes(), *self.runner.take_lost_writes()]

    # -- compaction (agent/session_compaction.py) -------------------------------------------

    async def compact(
        self, instructions: str | None = None, reason: ev.CompactionReason = "forced"
    ) -> AsyncIterator[ev.AgentEvent]:
        """Force a compaction now (`/compact`, `sessions compact`, `run --compact`); busy meanwhile."""
        self.busy = True
        try:
            async for event in self.compaction.forced(self.config, self.turns, instructions, reason):
                yield event
        finally:
            self.busy = False

    def _thresholds(self, *, first: bool = False) -> AsyncIterator[ev.AgentEvent]:
        count = functools.partial(preflight, self) if first else None  # the server's count, once a turn
        return self.compaction.thresholds(self.config, self.limits.context_window, self.turns, count)

    # -- the turn --------------------------------------------------------------------------

    async def run_turn(self, prompt: str, *, as_is: bool = False) -> AsyncIterator[ev.AgentEvent]:
        """One user message and everything the agent does until it answers: steps (agent/turn.py)
        until one ends the turn. `as_is` sends the prompt exactly as given, with no `@path`
        attachments and no offload of a long one (the autonomous loop builds its own bounded
        prompt) — unless it cannot fit the window at all."""
        self.busy = True
        self.turns += 1
        turn = TurnState()
        try:
            yield ev.TurnStarted(self.session_id, prompt)
            for note in await self.repair():
                yield ev.Notice(note)
            hook_context = ""
            if self.hooks is not None:
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
            prepared = await self.record.prepare(prompt, as_is, self.measure(with_status=False), self.config)
            turn.refs.extend(prepared.refs)
            for note in prepared.notes:
                yield ev.Notice(note)
            turn.sent = user(prepared.text + hook_context, images=tuple(prepared.images))
            # Stored while the first request leaves; every later write waits for it.
            self.record.add_soon(turn.sent, self.runner.turn_starts_at)
            stop_reason: ev.StopReason = "done"
            steps = 0  # counted against [agent] max_steps (an overflow retry is not)
            first = True
            while True:
                async for event in self._thresholds(first=first):
                    yield event
                first = False
                if steps >= self.config.agent.max_steps:
                    stop_reason = "max_steps"
                    yield ev.Notice(
                        f"Stopped after {steps} model calls in one turn "
                        "([agent] max_steps); send a message to continue."
                    )
                    break
                outcome: StepOutcome = NextStep()
                async for item in step(self, turn, steps + 1):
                    if isinstance(item, NextStep | RetryStep | TurnOver):
                        outcome = item
                    else:
                        yield item
                match outcome:
                    case NextStep():
                        steps += 1
                    case RetryStep():
                        continue
                    case TurnOver(stop_reason=reason):
                        stop_reason = reason
                        break
                    case _:
                        assert_never(outcome)
            async for event in self._thresholds():
                yield event
            self.last_budget = self.compaction.settled or self.measure()
            await keep_calibration(self)
            self.compactor.record_turn(self.turns, self.last_budget)
            yield ev.BudgetMeasured(self.last_budget)
            await self.record.settled()  # the turn's message is stored (or its loss is said) by now
            for lost in self.take_lost_writes():  # a full disk is an error the user sees
                yield ev.ErrorEvent(lost, STORAGE)
            yield ev.TurnFinished(turn.reply.text, stop_reason=stop_reason, refs=tuple(turn.refs))
        except asyncio.CancelledError:
            await self._interrupted(turn)
            raise
        finally:
            self.busy = False

    async def close(self) -> None:
        """SessionEnd fires (once), the background commands end, then the lease is given back
        (the store itself belongs to the app)."""
        await self.record.settled()
        await self.end_hooks()
        if self.background is not None:
            await self.background.end_all()
        if self.store is None:
            return
        try:
            await self.store.leases.release(self.session_id)
        except Exception:
            log.warning("could not release the lease of %s", self.session_id, exc_info=True)

    async def end_hooks(self, reason: str = "exit") -> list[ev.AgentEvent]:
        """Fire SessionEnd once; returns its runs for a caller still showing events."""
        if self.hooks is None or not self._hooks_started:
            return []
        self._hooks_started = False
        await self.hooks.fire("SessionEnd", {"reason": reason})
        return self.hooks.drain()

    def run_user_command(self, command: str) -> AsyncIterator[ev.AgentEvent]:
        """`!command`: run it for the user, unasked, and let the next turn's model see it."""
        return user_command.run_user_command(self, command)

    async def rewind(self, point: RewindPoint, scope: Scope) -> RewindReport:
        """Back to just before an earlier user message (agent/rewind.py)."""
        return await rewind.rewind(self, point, scope)

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

    def grants(self) -> list[tuple[AllowRule, Tier]]:
        """The rules that let a call run unasked, each with its tier (user … session)."""
        return self.runner.policy.rules.entries()

    def revoke_rule(self, rule: str) -> bool:
        """Stop `rule` allowing anything from the next call on; False when no rule matched."""
        return self.runner.policy.revoke(rule)

    async def _interrupted(self, turn: TurnState) -> None:
        """Leave the session consistent: partial text saved and marked, every call answered."""
        closing: list[Message] = []
        await asyncio.shield(subagent_calls.settle(self.runner))  # children end first, saying so
        if turn.pending is not None:
            for call in turn.pending.tool_calls:
                if call.id not in turn.answered:
                    text = subagent_calls.cancelled_text(self.runner, call.id)
                    closing.append(
                        tool_result(
                            call, text or "[cancelled by the user before it finished]", outcome="cancelled"
                        )
                    )
        elif turn.reply.text_parts:
            closing.append(assistant(turn.reply.text + f"\n\n{INTERRUPTED}"))
        closing.append(Message(role="user", content=INTERRUPTED, kind="note"))
        await asyncio.shield(self.record.add(*closing))

    async def request_stream(self) -> AsyncIterator[Any]:
        """The provider stream for the current history, recording usage against the estimate."""
        async for chunk in model_call.request_stream(
            self.provider,
            self.prompts,
            image_attach.for_model(self.wire(self.history), self.model),  # a command's model: may see none
            self._request_parts,
            self.limits.max_output_tokens,
            web_search.server_tools(self.config, self.provider),
        ):
            if isinstance(chunk, UsageChunk):
                usage = chunk.usage
                self.usage_total = self.usage_total + usage
                self.meter.record_usage(usage.prompt_tokens, self.history, cached=usage.cache_read)
            yield chunk
