"""The compaction chain: cheapest strategy first, stop as soon as the conversation fits.

`compact()` is a function from a history and a target to a new history and a `CompactResult`; it
runs inside the loop (never beside it), never raises for a summariser failure (it falls back to
the second summariser, then to truncation), and never applies a result that did not shrink.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .record import CompactionRecord, StrategyRecord, strategy_record, summary_text
from .result import CompactionPlan, CompactResult, format_tokens
from .shape import inflight_start, newest_user_index
from .strategies import CHEAP, LABELS, LAST_RESORT, STRATEGIES, SUMMARY
from .summarize import reserve_for, summarize
from .summary_prompt import Summarizer, SummaryFailed, build_instructions, model_name
from .transcript import LINE_TOKENS, TranscriptIndex, name_dropped
from .turn_steps import shrink_turn_views

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter
    from agent_tui.config import CompactionSettings

log = logging.getLogger(__name__)


def _safe(on_progress: Callable[[str], None] | None) -> Callable[[str], None]:
    """A progress callback that cannot break compaction (it is UI code)."""

    def report(label: str) -> None:
        if on_progress is None:
            return
        try:
            on_progress(label)
        except Exception:
            log.exception("compaction progress callback failed")

    return report


def _must_keep_tokens(messages: list[Message], counter: TokenCounter) -> int:
    """What no strategy may drop: the newest user message and the step in flight."""
    keep: set[int] = set()
    newest = newest_user_index(messages)
    if newest is not None:
        keep.add(newest)
    start = inflight_start(messages)
    if start is not None:
        keep.update(range(start, len(messages)))
    return sum(counter.count_message(messages[i]) for i in keep)


async def compact(
    messages: list[Message],
    *,
    counter: TokenCounter,
    settings: CompactionSettings,
    target_tokens: int,
    fixed_tokens: int,
    summarizer: Summarizer | None = None,
    fallback_summarizer: Summarizer | None = None,
    instructions: str | None = None,
    summarizer_window: int | None = None,
    on_progress: Callable[[str], None] | None = None,
    force: bool = False,
    transcript: TranscriptIndex | None = None,
    asked_by_user: bool = False,
) -> tuple[list[Message], CompactResult]:
    """Compact `messages` (the conversation, without the system prompt) so that it plus
    `fixed_tokens` comes under `target_tokens`. Returns the new list (the original list when
    the result is not applied) and what was done. With `transcript` (where the history sits in
    the stored transcript), each summary or truncation note ends with the line naming the range
    of messages it replaced. `asked_by_user` (`/compact <instructions>` between turns): the
    summary covers the last turn too when nothing older is left, so the instructions are used."""
    started = time.perf_counter()
    original = list(messages)
    plan = CompactionPlan.build(
        settings,
        target_tokens=target_tokens,
        fixed_tokens=fixed_tokens,
        summarizer_window=summarizer_window,
        force=force,
        footer_tokens=LINE_TOKENS if transcript is not None else 0,
        keep_user_tokens=settings.keep_user_messages_tokens,
    )
    budget = plan.conversation_budget
    progress = _safe(on_progress)
    before = counter.count_messages(original)
    reasons: list[str] = []
    if fixed_tokens >= target_tokens:
        reasons.append(
            f"the system prompt and tool descriptions alone take {format_tokens(fixed_tokens)} "
            f"tokens, over the {format_tokens(target_tokens)} target"
        )

    def result(
        current: list[Message], tokens: int, ran: list[str], model: str | None, applied: bool
    ) -> tuple[list[Message], CompactResult]:
        return current, CompactResult(
            tokens_before=before + fixed_tokens,
            tokens_after=tokens + fixed_tokens,
            messages_before=len(original),
            messages_after=len(current),
            strategies=tuple(ran),
            labels=tuple(LABELS[name] for name in ran),
            duration=time.perf_counter() - started,
            summary_model=model,
            reached_target=tokens <= budget and fixed_tokens <= target_tokens,
            reason="; ".join(dict.fromkeys(reasons)),
            applied=applied,
            target_tokens=target_tokens,
            fixed_tokens=fixed_tokens,
            replaced=_replaced(original, current, transcript) if applied else None,
            instructions=(instructions or "").strip(),
            unused=_unused(instructions, ran, reasons),
            record=_record(original, current, records) if applied else None,
        )

    def named(before_step: list[Message], after_step: list[Message]) -> tuple[list[Message], int]:
        if transcript is None:
            return after_step, counter.count_messages(after_step)
        out = name_dropped(before_step, after_step, transcript)
        return out, counter.count_messages(out)

    if not settings.enabled:
        reasons.append("compaction is disabled ([compaction] enabled = false)")
        return result(original, before, [], None, False)
    if before <= budget and not force:
        reasons.append("the conversation is already under the target")
        return result(original, before, [], None, False)

    summarizers = [s for s in (summarizer, fallback_summarizer) if s is not None]
    will_summarise = getattr(settings, SUMMARY.name) and bool(summarizers)
    # Forced with no summary to come: the cheap strategies go as far as they can instead.
    cheap_plan = plan.unbounded() if force and not will_summarise else plan
    current, total, ran, model = original, before, [], None
    records: list[StrategyRecord] = []

    def note(name: str, was: list[Message], was_tokens: int) -> None:
        records.append(strategy_record(name, was, current, (was_tokens, total), transcript))

    for strategy in CHEAP:
        if not getattr(settings, strategy.name) or total <= cheap_plan.conversation_budget:
            continue
        assert strategy.run is not None  # only the summary has none
        progress(strategy.label)
        outcome = strategy.run(current, cheap_plan, counter)
        if outcome.changed:
            was, was_tokens = current, total
            current, total = outcome.messages, outcome.tokens
            ran.append(strategy.name)
            note(strategy.name, was, was_tokens)

    if settings.tool_clearing and (total > budget or (force and will_summarise)):
        # The turn in flight keeps its steps: its older outputs' views shrink (refs kept) so
        # the strategies below never have to summarise or drop a step of it.
        shrunk = shrink_turn_views(current, counter, budget - reserve_for(current, plan))
        if shrunk is not None and shrunk is not current:
            was, was_tokens = current, total
            current, total = shrunk, counter.count_messages(shrunk)
            note("tool_clearing", was, was_tokens)
            if "tool_clearing" not in ran:
                ran.append("tool_clearing")

    if will_summarise and (total > budget or force):
        text = build_instructions(settings, instructions)
        for candidate in summarizers:
            progress(SUMMARY.label)
            try:
                outcome = await summarize(
                    current,
                    plan,
                    counter,
                    candidate,
                    instructions=text,
                    on_progress=progress,
                    everything=asked_by_user and bool((instructions or "").strip()),
                )
            except SummaryFailed as exc:
                log.warning("summary by %s failed: %s", model_name(candidate), exc)
                reasons.append(f"summary by {model_name(candidate)} failed ({exc})")
                continue
            if outcome.changed:
                was, was_tokens = current, total
                current, total = named(current, outcome.messages)
                ran.append(SUMMARY.name)
                note(SUMMARY.name, was, was_tokens)
                model = outcome.model
            elif total > budget or instructions:
                reasons.extend(outcome.notes)
            break
    elif getattr(settings, SUMMARY.name) and (total > budget or instructions):
        reasons.append("no summariser was available")
    elif instructions and not settings.summarization:
        reasons.append("summaries are off ([compaction] summarization = false)")

    for strategy in LAST_RESORT:
        if total <= budget:
            break
        if not getattr(settings, strategy.name):
            reasons.append(f"{strategy.name} is disabled")
            continue
        assert strategy.run is not None  # only the summary has none
        progress(strategy.label)
        outcome = strategy.run(current, plan, counter)
        if outcome.changed:
            was, was_tokens = current, total
            current, total = named(current, outcome.messages)
            ran.append(strategy.name)
            note(strategy.name, was, was_tokens)

    after = counter.count_messages(current)
    if not ran or after >= before:
        if ran:
            reasons.append(
                f"it would not shrink the history ({format_tokens(before)} → {format_tokens(after)} tokens)"
            )
        elif before <= budget:
            reasons.append("the conversation is already under the target")
        else:
            reasons.append("no enabled strategy could free anything")
        return result(original, before, [], None, False)
    if after > budget:
        must = _must_keep_tokens(current, counter)
        if must > budget:
            reasons.append(
                f"the newest user message and the step in flight alone take {format_tokens(must)} tokens"
            )
        elif not reasons:
            reasons.append("the enabled strategies could not free enough")
    log.info("compaction: %d → %d tokens (%s)", before, after, ", ".join(ran))
    return result(current, after, ran, model, True)


def _record(
    original: list[Message], current: list[Message], records: list[StrategyRecord]
) -> CompactionRecord:
    """The record of an applied compaction: each strategy's items, what stayed, the summary."""
    before = {m.id for m in original}
    new = [m for m in current if m.id not in before]
    kept = sum(1 for m in current if m.id in before)
    return CompactionRecord(tuple(records), kept, summary_text(new))


def _unused(instructions: str | None, ran: list[str], reasons: list[str]) -> str:
    """Why `/compact <instructions>` made no summary to follow them ("" when it made one)."""
    if not (instructions or "").strip() or "summarization" in ran:
        return ""
    return "; ".join(dict.fromkeys(reasons)) or "no summary was made"


def _replaced(
    original: list[Message], current: list[Message], index: TranscriptIndex | None
) -> tuple[int, int] | None:
    """The transcript range this compaction took out of the window, when it dropped any."""
    if index is None:
        return None
    kept = {m.id for m in current}
    return index.covered(m for m in original if m.id not in kept)


async def estimate_savings(
    messages: list[Message],
    *,
    counter: TokenCounter,
    settings: CompactionSettings,
    target_tokens: int,
    fixed_tokens: int,
) -> dict[str, int]:
    """Tokens each strategy alone could free now, found by running it on the list (messages
    are immutable, so nothing is touched). Clearing, pruning and truncation go as far as they
    can; the summary is an estimate of its result size (no model is called)."""
    plan = CompactionPlan.build(settings, target_tokens=target_tokens, fixed_tokens=fixed_tokens)
    total = counter.count_messages(messages)
    return {strategy.name: total - strategy.estimate(messages, plan, counter) for strategy in STRATEGIES}
