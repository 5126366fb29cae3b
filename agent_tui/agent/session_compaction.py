"""The session's side of compaction: when it runs, and adopting what the compactor hands back.

The compactor (agent/compactor.py) takes values and yields an outcome; this object, which the
session owns, gathers those values from the session's history and budget, adopts the outcome
into the history (agent/history.py) and measures after. The thresholds are checked before every
step: tool outputs past their budget are trimmed at once, a message too big for the window
becomes a view, the conversation is compacted at the trigger and always at the block.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.agent.compactor import CompactionInput, CompactionOutcome, Compactor
from agent_tui.base.units import grouped

if TYPE_CHECKING:
    from agent_tui.agent.history import SessionHistory
    from agent_tui.config import Config
    from agent_tui.context.budget import ContextBudget
    from agent_tui.context.compaction import CompactResult
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.store import Store

log = logging.getLogger(__name__)

STEP_SHARE = 0.25
"""The newest step's outputs are cut to fit only when they hold at least this share of the window."""
Measure = Callable[..., "ContextBudget"]
"""The session's `measure(with_status=…)`: it also sets the request parts of the next request."""


def step_cut_notice(cut: int, outputs: int, tokens: float, budget: ContextBudget) -> str:
    """What cutting the newest step's views did, in the figures that made it necessary: the
    outputs' share of the window (a quarter or more) and how full the next request would have
    been — not that they "passed the window", which they need not have."""
    share = tokens / max(budget.effective_window, 1)
    cutting = f"{cut} of its {outputs} tool outputs" if cut < outputs else f"its {cut} tool outputs"
    return (
        f"The last step's tool outputs took {grouped(int(tokens))} tokens, {share:.0%} of the window, "
        f"and the next request would have filled {budget.used_fraction:.0%} of it; {cutting} now show their head "
        "and the ref that reads the rest."
    )


class SessionCompaction:
    def __init__(
        self,
        compactor: Compactor,
        record: SessionHistory,
        measure: Measure,
        request_parts: Callable[[], tuple[list[Any], list[dict[str, Any]]]],
        *,
        hooks: HookRunner | None,
        store: Store | None,
        session_id: str,
    ) -> None:
        self.compactor = compactor
        self.record = record
        self.measure = measure
        self.request_parts = request_parts
        self.hooks = hooks
        self.store = store
        self.session_id = session_id
        self.settled: ContextBudget | None = None
        """The last `thresholds`' final measure when nothing ran after it (no compaction): the
        figure of the request as it stands, which the turn's end need not measure again."""

    async def run(
        self,
        config: Config,
        turn: int,
        reason: ev.CompactionReason,
        instructions: str | None = None,
        *,
        force: bool,
        snapshot: bool = True,
    ) -> AsyncIterator[ev.AgentEvent]:
        """Run the compactor on the live history and adopt its outcome."""
        self.record.meter.counter.wait_exact()  # what is kept is fitted to the target by these counts
        before = self.measure(with_status=False)  # also the request parts the fixed share counts
        given = CompactionInput(
            history=self.record.messages,
            before=before,
            meter=self.record.meter,
            request_parts=self.request_parts(),
            settings=config.compaction,
            hooks=self.hooks,
            store=self.store,
            session_id=self.session_id,
        )
        outcome: CompactionOutcome | None = None
        async for item in self.compactor.run(given, reason=reason, instructions=instructions, force=force):
            if isinstance(item, CompactionOutcome):
                outcome = item
            else:
                yield item
        assert outcome is not None  # the compactor's last item
        if outcome.result.applied:
            await self.record.adopt(outcome.history, snapshot=snapshot)
            await self._keep_record(outcome.result)
        for event in self.compactor.finished(outcome.result, self.measure(with_status=False), turn):
            yield event

    async def _keep_record(self, result: CompactResult) -> None:
        """Store what this compaction did (/context lists it; a resumed session still has it)."""
        self.compactor.records.append(result)
        if self.store is None:
            return
        try:
            await self.store.side.add_compaction(self.session_id, json.dumps(result.to_json()))
        except Exception:
            log.exception("storing the compaction record failed; /context still lists it")

    async def forced(
        self, config: Config, turn: int, instructions: str | None, reason: ev.CompactionReason
    ) -> AsyncIterator[ev.AgentEvent]:
        """`/compact` and its kin: an oversized message becomes a view first, then the chain runs."""
        async for event in self.record.fit_oversize(self.measure(with_status=False), config):
            yield event
        async for event in self.run(config, turn, reason, instructions, force=True):
            yield event

    async def thresholds(
        self,
        config: Config,
        window: int,
        turn: int,
        count: Callable[[ContextBudget], Awaitable[int | None]] | None = None,
    ) -> AsyncIterator[ev.AgentEvent]:
        """Trim tool outputs past their budget at once; compact at the trigger; block at the top.
        `count` (the pre-flight, agent/window.py) may have the server count the request just
        measured: the thresholds then decide on its figure, and the request is measured once."""
        self.settled = None
        budget_tokens = config.tool_output_budget(window)
        trimmed = self.compactor.trim_tool_outputs(
            self.record.messages, self.record.meter.counter, budget_tokens
        )
        if trimmed is not None:
            await self.record.adopt(trimmed.history)
            yield ev.Notice(trimmed.notice)
        budget = self.measure()
        if count is not None and await count(budget):
            budget = self.measure()  # calibrated by the server's count
        if budget.exceeds:
            async for event in self.record.fit_oversize(self.measure(with_status=False), config):
                yield event
            budget = self.measure()
        if budget.is_blocked:
            async for event in self.fit_step(budget):
                yield event
            budget = self.measure()
        settings = config.compaction
        if budget.is_blocked and settings.enabled:
            yield ev.Blocked(budget)
            async for event in self.run(config, turn, "blocked", force=True):
                yield event
        elif (
            budget.should_compact
            and settings.enabled
            and settings.auto
            and self.compactor.may_auto_compact(budget)
        ):
            async for event in self.run(config, turn, "auto", force=False):
                yield event
        else:
            self.settled = budget

    async def fit_step(self, budget: ContextBudget) -> AsyncIterator[ev.AgentEvent]:
        """The newest step's results cut so the request is back under the warning mark: what
        compaction protects can still free room (context/compaction/step_fit.py)."""
        from agent_tui.context.compaction.step_fit import fit_step_outputs, step_results  # lazy: start-up

        meter = self.record.meter
        messages = self.record.messages
        self.measure(with_status=False)  # the raw figure of exactly this history
        raw_total = max(meter.last_raw_estimate, 1)
        scale = max(budget.used / raw_total, 1.0)  # calibrated per raw token, never below 1
        step = sum(meter.counter.count_message(messages[i]) for i in step_results(messages))
        if step * scale < STEP_SHARE * budget.effective_window:
            return  # the newest step is not what fills the window: compaction's job
        room = int(budget.effective_window * budget.warn_at / scale) - (raw_total - step)
        fitted, cut = fit_step_outputs(messages, counter=meter.counter, room_tokens=room)
        if cut:
            await self.record.adopt(fitted)
            yield ev.Notice(step_cut_notice(cut, len(step_results(messages)), step * scale, budget))
