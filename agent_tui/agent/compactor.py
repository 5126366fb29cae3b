"""Runs the compaction chain inside the loop and turns it into events and an outcome.

The chain itself is a pure function in `agent_tui.context.compaction`; this module decides when it
may run and relays its progress as events. It takes values (the history, the budget before, the
settings, where PreCompact hooks fire) and ends with a `CompactionOutcome`: the compacted history
the session adopts (rebuilding every derived count rather than patching it, and saving the
snapshot resume starts from) when the result says it applied. It never reads or writes a session.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.base.messages import Message, ToolCall
from agent_tui.base.tokens import ConversationTally
from agent_tui.base.units import grouped
from agent_tui.context import compaction

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter
    from agent_tui.config import CompactionSettings
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.context.compaction import CompactResult, Summarizer
    from agent_tui.hooks.runner import HookRunner
    from agent_tui.store import Store

log = logging.getLogger(__name__)

HISTORY_LOG_LIMIT = 1000
"""Entries `history_log` keeps (the oldest go first): the sparkline never needs more."""
REGROWTH_SHARE = 0.05
"""After an auto-compaction that could not reach its target, wait until the conversation has grown
by this share of the window before trying again (never compact on every turn)."""


@dataclass(frozen=True)
class CompactionInput:
    """What one compaction reads: the session's state at the moment it starts, as values."""

    history: Sequence[Message]
    before: ContextBudget
    """The budget of the next request without the status note."""
    meter: BudgetMeter
    request_parts: tuple[list[Any], list[dict[str, Any]]]
    """The prompt sections and tool schemas of the last measured request (the fixed part)."""
    settings: CompactionSettings
    hooks: HookRunner | None
    """PreCompact fires through them (agent_tui/hooks/)."""
    store: Store | None
    session_id: str


@dataclass(frozen=True)
class CompactionOutcome:
    """How a compaction ended: the result, and the history to adopt when it applied."""

    result: CompactResult
    history: list[Message]


@dataclass(frozen=True)
class Trimmed:
    """Old tool outputs became placeholders: the history to adopt, and what to tell the user."""

    history: list[Message]
    notice: str


async def transcript_index(store: Store | None, session_id: str) -> compaction.TranscriptIndex | None:
    """Where the history sits in the stored transcript, so what compaction drops is named as a
    readable range; None without a store (then there is nothing to name)."""
    if store is None:
        return None
    try:
        return compaction.TranscriptIndex.build(await store.transcript.keys(session_id))
    except Exception:
        log.exception("reading the transcript index failed; the compaction note names no range")
        return None


def tool_instructions(call: ToolCall) -> str | None:
    """The instructions the model passed to compact_context (None when it passed none)."""
    try:
        args = call.parsed_arguments()
    except ValueError:
        return None
    value = args.get("instructions")
    return value if isinstance(value, str) else None


def tool_text(result: CompactResult | None) -> str:
    """compact_context's result, as the model reads it."""
    return result.describe() if result is not None else "Compaction did not run."


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
        self.records: list[CompactResult] = []
        """This process's applied compactions of the session, oldest first (/context lists them)."""
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

    def trim_tool_outputs(
        self, history: list[Message], counter: TokenCounter, budget_tokens: int
    ) -> Trimmed | None:
        """Past the tool-output budget, the oldest outputs become placeholders at once."""
        if self._tool_tally is None or self._tool_tally.counter is not counter:
            self._tool_tally = ConversationTally(counter, role="tool")
        if self._tool_tally.total(history) <= budget_tokens:
            return None  # the common case, in O(new messages): nothing to trim
        trimmed, count = compaction.trim_tool_outputs(history, counter=counter, budget_tokens=budget_tokens)
        if not count:
            return None
        return Trimmed(
            trimmed,
            f"Trimmed {count} old tool output(s) past the tool-output budget ({grouped(budget_tokens)} tokens); refs kept.",
        )

    async def run(
        self,
        given: CompactionInput,
        *,
        reason: ev.CompactionReason,
        instructions: str | None = None,
        force: bool = False,
    ) -> AsyncIterator[ev.AgentEvent | CompactionOutcome]:
        """Compact `given.history`: started and progress events, then the outcome (last)."""
        if given.hooks is not None:
            trigger = "manual" if reason in ("forced", "tool") else "auto"
            await given.hooks.fire(
                "PreCompact", {"trigger": trigger, "custom_instructions": instructions or ""}
            )
            for event in given.hooks.drain():
                yield event
        before, meter = given.before, given.meter
        yield ev.CompactionStarted(reason, before.used)
        # The chain counts with the raw tokenizer; express the target and the fixed part in the
        # same raw units, or a provider that counts 1.3× tiktoken lands 30% over the target.
        ratio = meter.calibration.ratio or 1.0
        raw = meter.raw_parts(given.history, *given.request_parts)
        # The thinking blocks the request sends back ride on the turn in progress, which no
        # strategy removes, and the chain does not count them: they are part of the fixed share.
        fixed_raw = sum(raw.values()) - raw["conversation"] + meter.last_reasoning
        target = before.effective_window * given.settings.target_ratio
        transcript = await transcript_index(given.store, given.session_id)
        progress: asyncio.Queue[str] = asyncio.Queue()
        task = asyncio.ensure_future(
            compaction.compact(
                list(given.history),
                counter=meter.counter,
                settings=given.settings,
                target_tokens=int(target / ratio),
                fixed_tokens=fixed_raw,
                summarizer=self.summarizer,
                fallback_summarizer=self.fallback,
                instructions=instructions,
                # In the counter's units too: a part sized by tiktoken against the server's
                # window was refused by a tokenizer that counts 1.5× more (the summary was lost).
                summarizer_window=(
                    int(self.summarizer_window / max(ratio, 1.0)) if self.summarizer_window else None
                ),
                on_progress=progress.put_nowait,
                force=force,
                transcript=transcript,
                asked_by_user=reason == "forced",  # the model's compact_context keeps its turn's steps
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
        # Said in the meter's figures: the chain's are the raw counter's (a notice read
        # `5.8k → 3.3k` while the meter, calibrated, read 4.2k).
        result = replace(result, tokens_before=before.used, target_tokens=int(target))
        yield CompactionOutcome(result, new_history)

    def finished(self, result: CompactResult, after: ContextBudget, turn: int) -> list[ev.AgentEvent]:
        """The outcome was adopted (or not) and the budget measured after: what is said of it."""
        # Still over the trigger: only try again once the conversation has grown.
        self._auto_floor = after.conversation if after.should_compact else None
        if result.applied:
            self.record_turn(turn, after, compacted=True)
            # The figure the meter shows next, and the target judged by it.
            result = replace(
                result, tokens_after=after.used, reached_target=after.used <= result.target_tokens
            )
        events: list[ev.AgentEvent] = [ev.CompactionFinished(result)]
        if not result.reached_target and result.reason and not self._warned_fixed:
            self._warned_fixed = True
            events.append(
                ev.Notice(f"Compaction could not reach its target: {result.reason}", code="compaction_short")
            )
        events.append(ev.BudgetMeasured(after))
        return events
