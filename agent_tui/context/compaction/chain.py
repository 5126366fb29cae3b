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

from .result import CompactionPlan, CompactResult, format_tokens
from .shape import inflight_start, newest_user_index
from .strategies import CHEAP, LABELS, LAST_RESORT, STRATEGIES, SUMMARY
from .summarize import summarize
from .summary_prompt import Summarizer, SummaryFailed, build_instructions, model_name
from .transcript import LINE_TOKENS, TranscriptIndex, name_dropped

if TYPE_CHECKING:
    from agent_tui.config import CompactionSettings
    from agent_tui.messages import Message
    from agent_tui.tokens import TokenCounter

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
) -> tuple[list[Message], CompactResult]:
    """Compact `messages` (the conversation, without the system prompt) so that it plus
    `fixed_tokens` comes under `target_tokens`. Returns the new list (the original list when
    the result is not applied) and what was done. With `transcript` (where the history sits in
    the stored transcript), each summary or truncation note ends with the line naming the range
    of messages it replaced."""
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

    for strategy in CHEAP:
        if not getattr(settings, strategy.name) or total <= cheap_plan.conversation_budget:
            continue
        assert strategy.run is not None  # only the summary has none
        progress(strategy.label)
        outcome = strategy.run(current, cheap_plan, counter)
        if outcome.changed:
            current, total = outcome.messages, outcome.tokens
            ran.append(strategy.name)

    if will_summarise and (total > budget or force):
        text = build_instructions(settings, instructions)
        for candidate in summarizers:
            progress(SUMMARY.label)
            try:
                outcome = await summarize(
                    current, plan, counter, candidate, instructions=text, on_progress=progress
                )
            except SummaryFailed as exc:
                log.warning("summary by %s failed: %s", model_name(candidate), exc)
                reasons.append(f"summary by {model_name(candidate)} failed ({exc})")
                continue
            if outcome.changed:
                current, total = named(current, outcome.messages)
                ran.append(SUMMARY.name)
                model = outcome.model
            elif total > budget:
                reasons.extend(outcome.notes)
            break
    elif getattr(settings, SUMMARY.name) and total > budget:
        reasons.append("no summariser was available")

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
            current, total = named(current, outcome.messages)
            ran.append(strategy.name)

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
