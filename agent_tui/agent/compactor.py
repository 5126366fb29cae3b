"""Runs the compaction chain inside the loop and turns it into events and snapshots.

The chain itself is a pure function in `agent_tui.context.compaction`; this module decides when it
may run and relays its progress as events; the compacted history goes back to the session, which
adopts it (rebuilding every derived count rather than patching it) and saves the snapshot resume
starts from. The compactor sees the session only as a `CompactionTarget`: it reads it, and hands a
new history back through the session's own `adopt_history`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.context import compaction
from agent_tui.messages import ToolCall, tool_result
from agent_tui.tokens import ConversationTally

if TYPE_CHECKING:
    from agent_tui.agent.compaction_target import CompactionTarget
    from agent_tui.context.budget import ContextBudget
    from agent_tui.context.compaction import CompactResult, Summarizer

log = logging.getLogger(__name__)

HISTORY_LOG_LIMIT = 1000
"""Entries `history_log` keeps (the oldest go first): the sparkline never needs more."""
REGROWTH_SHARE = 0.05
"""After an auto-compaction that could not reach its target, wait until the conversation has grown
by this share of the window before trying again (never compact on every turn)."""


async def transcript_index(session: CompactionTarget) -> compaction.TranscriptIndex | None:
    """Where the history sits in the stored transcript, so what compaction drops is named as a
    readable range; None without a store (then there is nothing to name)."""
    if session.store is None:
        return None
    try:
        return compaction.TranscriptIndex.build(await session.store.transcript.keys(session.session_id))
    except Exception:
        log.exception("reading the transcript index failed; the compaction note names no range")
        return None


class Compactor:
    def __init__(
        self, summarizer: Summarizer | None, fallback: Summarizer | None, summarizer_window: int | None
    ) -> None:
        self.summarizer = summarizer
        self.fallback = fallback
        self.summarizer_window = summarizer_window
        self._auto_floor: int | None = None
        self._warned_fixed = False
        self._tool_tally: ConversationTally | None = None
        self.history_log: list[tuple[int, float, bool]] = []
        """(turn, used_fraction, compacted): one entry at the end of every turn and one after
        every compaction, for the /context sparkline."""

    def record_turn(self, turn: int, budget: ContextBudget, *, compacted: bool = False) -> None:
        """Log how full the window was at the end of a turn (or after a compaction)."""
        self.history_log.append((turn, budget.used_fraction, compacted))
        if len(self.history_log) > HISTORY_LOG_LIMIT:
            del self.history_log[: len(self.history_log) - HISTORY_LOG_LIMIT]

    def may_auto_compact(self, budget: ContextBudget) -> bool:
        if self._auto_floor is None:
            return True
        grown = budget.conversation - self._auto_floor
        return grown >= REGROWTH_SHARE * budget.effective_window

    def target_tokens(self, session: CompactionTarget) -> int:
        budget = session.last_budget or session.measure()
        return int(budget.effective_window * session.config.compaction.target_ratio)

    async def trim_tool_outputs(self, session: CompactionTarget) -> AsyncIterator[ev.AgentEvent]:
        """Past the tool-output budget, the oldest outputs become placeholders at once."""
        budget_tokens = session.config.tool_output_budget(session.limits.context_window)
        if self._tool_tally is None or self._tool_tally.counter is not session.meter.counter:
            self._tool_tally = ConversationTally(session.meter.counter, role="tool")
        if self._tool_tally.total(session.history) <= budget_tokens:
            return  # the common case, in O(new messages): nothing to trim
        trimmed, count = compaction.trim_tool_outputs(
            session.history, counter=session.meter.counter, budget_tokens=budget_tokens
        )
        if count:
            await session.adopt_history(trimmed)
            yield ev.Notice(
                f"Trimmed {count} old tool output(s) past the tool-output budget "
                f"({budget_tokens} tokens); refs kept."
            )

    async def run(
        self,
        session: CompactionTarget,
        *,
        reason: ev.CompactionReason,
        instructions: str | None = None,
        force: bool = False,
        snapshot: bool = True,
    ) -> AsyncIterator[ev.AgentEvent]:
        """Compact `session.history`; yields started/progress/finished events."""
        if session.hooks is not None:
            trigger = "manual" if reason in ("forced", "tool") else "auto"
            await session.hooks.fire(
                "PreCompact", {"trigger": trigger, "custom_instructions": instructions or ""}
            )
            for event in session.hooks.drain():
                yield event
        session.meter.counter.wait_exact()  # what is kept is fitted to the target by these counts
        before = session.measure(with_status=False)
        yield ev.CompactionStarted(reason, before.used)
        # The chain counts with the raw tokenizer; express the target and the fixed part in the
        # same raw units, or a provider that counts 1.3× tiktoken lands 30% over the target.
        ratio = session.meter.calibration.ratio or 1.0
        raw = session.meter.raw_parts(session.history, *session.request_parts)
        # The thinking blocks the request sends back ride on the turn in progress, which no
        # strategy removes, and the chain does not count them: they are part of the fixed share.
        fixed_raw = sum(raw.values()) - raw["conversation"] + session.meter.last_reasoning
        target = before.effective_window * session.config.compaction.target_ratio
        transcript = await transcript_index(session)
        progress: asyncio.Queue[str] = asyncio.Queue()
        task = asyncio.ensure_future(
            compaction.compact(
                list(session.history),
                counter=session.meter.counter,
                settings=session.config.compaction,
                target_tokens=int(target / ratio),
                fixed_tokens=fixed_raw,
                summarizer=self.summarizer,
                fallback_summarizer=self.fallback,
                instructions=instructions,
                summarizer_window=self.summarizer_window,
                on_progress=progress.put_nowait,
                force=force,
                transcript=transcript,
            )
        )
        try:
            while not task.done():
                getter = asyncio.ensure_future(progress.get())
                await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield ev.CompactionProgress(getter.result())
                else:
                    getter.cancel()
            while not progress.empty():
                yield ev.CompactionProgress(progress.get_nowait())
            new_history, result = task.result()
        except BaseException:
            task.cancel()
            raise
        if result.applied:
            await session.adopt_history(new_history, snapshot=snapshot)
        after = session.measure(with_status=False)
        self._note_outcome(reason, result, after)
        if result.applied:
            self.record_turn(session.turns, after, compacted=True)
        yield ev.CompactionFinished(result)
        if not result.reached_target and result.reason and not self._warned_fixed:
            self._warned_fixed = True
            yield ev.Notice(f"Compaction could not reach its target: {result.reason}")
        yield ev.BudgetMeasured(after)

    def _note_outcome(self, reason: ev.CompactionReason, result: CompactResult, after: ContextBudget) -> None:
        if after.should_compact:
            # Still over the trigger: only try again once the conversation has grown.
            self._auto_floor = after.conversation
        else:
            self._auto_floor = None

    async def run_as_tool(self, session: CompactionTarget, call: ToolCall) -> AsyncIterator[ev.AgentEvent]:
        """The model called compact_context: its call and its result survive what it triggers."""
        try:
            args = call.parsed_arguments()
        except ValueError:
            args = {}
        # A placeholder answers the call while the chain runs, so the history it compacts is
        # well-formed; the real result replaces it after.
        provisional = tool_result(call, "[compacting…]")
        await session.adopt_history([*session.history, provisional])
        result: Any = None
        async for event in self.run(
            session, reason="tool", instructions=args.get("instructions"), force=True, snapshot=False
        ):
            if isinstance(event, ev.CompactionFinished):
                result = event.result
            yield event
        text = result.describe() if result is not None else "Compaction did not run."
        final = tool_result(call, text)
        history = [final if m.id == provisional.id else m for m in session.history]
        if final not in history:
            history.append(final)
        await session.adopt_history(history, persist=[final], snapshot=bool(result and result.applied))
        yield ev.ToolCallFinished(call, None, False, "compacted", text, 0.0)
