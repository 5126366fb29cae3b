"""The window a session's requests are measured against, and how it changes.

The reply reserve holds the thinking budget on top of the answer; a provider that reports a
smaller window than configured is believed from then on. Both resize the session's meter; the
session calls them (measuring, and on a context-length error). A context-length refusal teaches
the budget: the provider's count of the refused request calibrates the meter, the request shrinks
and is retried only when smaller than every one refused — never the same twice — and when nothing
can shrink enough one error says which part is too big and what to set.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.agent import events as ev
from agent_tui.agent.turn import RetryStep, TurnState
from agent_tui.base.units import grouped
from agent_tui.llm.errors import LLMError
from agent_tui.llm.models import reply_reserve
from agent_tui.llm.preflight import can_count, count_anthropic, count_request, remember_ratio

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from agent_tui.agent.history import SessionHistory
    from agent_tui.agent.prompting import PromptAssembler
    from agent_tui.agent.session_compaction import SessionCompaction
    from agent_tui.agent.wire import WireView
    from agent_tui.base.messages import Message
    from agent_tui.config import Config
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.llm.models import ModelLimits
    from agent_tui.llm.provider import Provider
    from agent_tui.store import Store


def reserve_thinking(limits: ModelLimits, provider: Provider, meter: BudgetMeter) -> None:
    """The reply reserve holds the thinking budget on top of the answer (the request's
    max_tokens grows by it), capped so half the window stays for the prompt; the thinking
    blocks the request sends back count in the conversation."""
    window, answer = limits.context_window, limits.max_output_tokens
    provider.max_thinking = max(window // 2 - answer, 0)
    thinking = provider.thinking_reserve
    if answer + thinking != meter.max_output_tokens or thinking != meter.thinking_reserve:
        meter.resize(window, answer + thinking, thinking)
    meter.counts_thinking = provider.takes_thinking_blocks


def learn_window(
    limits: ModelLimits, meter: BudgetMeter, reported: int | None
) -> tuple[ModelLimits, str] | None:
    """The provider's window is smaller than configured: the limits to believe from now on and
    what to tell the user (None when it is not smaller)."""
    if not reported or reported >= limits.context_window:
        return None
    old = limits.context_window
    reserve = min(limits.max_output_tokens, reply_reserve(reported, None, None))
    meter.resize(reported, reserve)
    return replace(limits, context_window=reported, max_output_tokens=reserve), (
        f"The provider's window is {grouped(reported)} tokens, not {grouped(old)}; using "
        f"{grouped(reported)} from now on (set [model] context_window to avoid this). "
        "Shrinking the request and retrying."
    )


class Shrinkable(Protocol):
    """The session, as answering a refusal uses it (agent/step.py's StepHost has all of it)."""

    config: Config
    limits: ModelLimits
    meter: BudgetMeter
    record: SessionHistory
    compaction: SessionCompaction
    turns: int

    def measure(self, *, with_status: bool = True) -> ContextBudget: ...

    @property
    def request_parts(self) -> tuple[list[Any], list[dict[str, Any]]]: ...


MAX_REFUSALS = 3
"""Refusals one turn answers by shrinking: each retry is smaller than every refused request,
so more than a few means the estimate is far off and the user should hear it."""


def fingerprint(history: Sequence[Message], tools: Sequence[dict[str, Any]], budget: ContextBudget) -> Any:
    """What tells two requests apart: the very messages, the offered schemas, the prompt's size."""
    return (tuple(map(id, history)), tuple(map(id, tools)), budget.system_prompt + budget.skill_prompts)


async def after_refusal(
    host: Shrinkable, turn: TurnState, exc: LLMError, refused: ContextBudget
) -> AsyncIterator[ev.AgentEvent | RetryStep | LLMError]:
    """The provider refused the request as too long. Learn from it (its window, its count of
    the request, which calibrates the budget), shrink (the tools by the calibrated share, an
    oversized message to a view, compaction) and retry only a request smaller than every one
    refused this turn; else end with the LLMError that says which part is too big."""
    size = exc.reported_prompt
    learned = learn_window(host.limits, host.meter, exc.reported_window)
    if learned is not None:
        host.limits = learned[0]
        yield ev.Notice(learned[1])
    if size:
        host.meter.record_usage(size, host.record.messages)
    turn.refused.append(
        (size or refused.used, fingerprint(host.record.messages, host.request_parts[1], refused))
    )
    budget = host.measure(with_status=False)
    if len(turn.refused) > MAX_REFUSALS or budget.fixed >= budget.effective_window:
        yield too_big(host, exc, budget, size)
        return
    counted = f"{grouped(size)} tokens by its count" if size else "it gave no count"
    yield ev.Notice(f"The provider refused the request as too long ({counted}); shrinking it and retrying.")
    async for event in host.record.fit_oversize(budget, host.config):
        yield event
    async for event in host.compaction.run(host.config, host.turns, "context_length", force=True):
        yield event
    budget = host.measure()
    smallest = min(count for count, _ in turn.refused)
    if budget.used >= smallest or budget.should_compact:
        async for event in host.compaction.fit_step(budget):  # the newest step's outputs first
            yield event
        budget = host.measure()
    if budget.used >= smallest or budget.should_compact:
        # Compaction could not free enough (one big paste is most of the conversation): the
        # newest message's view shrinks until the request is back under the warning mark.
        excess = budget.used - int(budget.effective_window * budget.warn_at)
        newest = next((m for m in reversed(host.record.messages) if m.role == "user"), None)
        if newest is not None:
            tokens = host.meter.counter.count_message(newest) * max(host.meter.calibration.ratio, 1.0)
            async for event in host.record.fit_oversize(budget, host.config, room=int(tokens) - excess):
                yield event
            budget = host.measure()
    messages = host.record.messages
    if turn.sent is not None and all(m.id != turn.sent.id for m in messages):
        # The prompt became a view: a failure from here takes the view back out of the history.
        turn.sent = next((m for m in reversed(messages) if m.role == "user" and m.kind == "chat"), turn.sent)
    same = any(
        mark == fingerprint(host.record.messages, host.request_parts[1], budget) for _, mark in turn.refused
    )
    if same or budget.used >= smallest or budget.exceeds:
        yield too_big(host, exc, budget, size)
        return
    yield RetryStep()


def too_big(host: Shrinkable, exc: LLMError, budget: ContextBudget, size: int | None) -> LLMError:
    """The one clear error when nothing more can shrink: which part is too big, what to set."""
    parts = {
        "the system prompt": budget.system_prompt + budget.skill_prompts,
        "the tool descriptions": budget.tool_descriptions,
        "the conversation": budget.conversation,
    }
    biggest = max(parts, key=lambda name: parts[name])
    listed = ", ".join(f"{name} {grouped(tokens)}" for name, tokens in parts.items())
    counted = f"The provider counted {grouped(size)} tokens; " if size else ""
    advice = (
        "send a shorter message, or start a new session (/new)"
        if biggest == "the conversation"
        else "give the server a larger window (llama.cpp --ctx-size, Ollama num_ctx) and set [model] "
        "context_window to it, or lower [model] max_output_tokens"
    )
    message = (
        f"The request cannot fit the {grouped(budget.total)}-token window of {host.config.model.name} "
        f"({grouped(budget.max_output_tokens)} reserved for the reply). {counted}by the calibrated count "
        f"{listed}: {biggest} is too big. To go on, {advice}."
    )
    return LLMError("context_length", message, status=exc.status, detail=exc.detail)


class Calibrated(Protocol):
    """The session, as the pre-flight count uses it."""

    config: Config
    model: str
    session_id: str
    store: Store | None
    provider: Provider
    meter: BudgetMeter
    prompts: PromptAssembler
    record: SessionHistory
    wire: WireView

    @property
    def request_parts(self) -> tuple[list[Any], list[dict[str, Any]]]: ...


NEAR_TRIGGER = 0.06
"""Below the compaction trigger by less than this share, an estimate can be on the wrong side of
it (a 1.6% miss sent 7 825 tokens past a 7 767 trigger at 8 192): the server counts it instead."""


def _counted_by_template(session: Calibrated) -> bool:
    """llama.cpp's count (its template, then its tokenizer) may apply: an OpenAI-compatible
    server the user named, and not one that caches prompts (a hosted API)."""
    return (
        session.provider.route.wire != "anthropic"
        and not session.prompts.cache_control
        and bool(session.config.model.api_base)
    )


async def get_ready(session: Calibrated) -> None:
    """While the user writes the first message (the `prepare` operation): the HTTP client is
    loaded off the event loop, and a server the pre-flight would ask is asked now whether it can
    count, so the first turn of one that cannot (every OpenAI-compatible server but llama.cpp)
    sends its request without a round trip first. Anthropic's count is the request's own: there
    is nothing to ask ahead. Never raises; done once per server and process."""
    if _counted_by_template(session):
        await can_count(session.config.model.api_base)


async def preflight(session: Calibrated, budget: ContextBudget) -> int | None:
    """Before a session's first request, and before any turn whose estimate is near the
    compaction trigger: where the server can count (llama.cpp, Anthropic), the request is counted by the
    server's own tokenizer and the meter calibrated by it, so the thresholds see what the server
    will see. Skipped otherwise (calibrated by a report or the cache). `budget` is the request's
    measure the thresholds just took (it set the request parts counted here): measuring again
    would only repeat it on every turn. Returns the server's count, if it counted."""
    anthropic = session.provider.route.wire == "anthropic"
    if not anthropic and not _counted_by_template(session):
        return None
    # No wait for tiktoken here: the meter loads it itself when the count is past half the window
    # (below that the heuristic's ratio is good enough), and a small first request stays fast.
    near = budget.used_fraction >= budget.compact_trigger - NEAR_TRIGGER
    if session.meter.calibration.calls and not near:
        return None

    sections, tools = session.request_parts
    built = session.prompts.builder.build(sections)
    history = session.record.messages
    messages = [{"role": "system", "content": built.text}, *map(session.prompts.wire, session.wire(history))]
    if anthropic:
        count = await count_anthropic(session.provider, messages, tools)
    else:
        count = await count_request(session.config.model.api_base, messages, tools)
    if count:
        session.meter.record_usage(count, history)
    return count


KEEP_STEP = 0.005
"""How far the ratio moves before it is kept again. It moves a little with every reply (an
average of the last few); keeping each move rewrote the state file and the session's row on every
turn. A start this close is well inside the pre-flight's NEAR_TRIGGER margin."""

_kept: dict[str, float] = {}
"""The ratio last saved with each session of this process (a turn that moved it by less than
KEEP_STEP writes nothing)."""


async def keep_calibration(session: Calibrated) -> None:
    """After a turn: the ratio learned, kept twice. In the state folder per model and server, for
    the next new session of the model (it has no history of its own to calibrate by); and with
    the session, for its resume (`-c`, /resume): its own history's mix of text — a log full of
    ids counts 1.5× tiktoken for Gemma, code barely more — is what the ratio multiplies, so the
    session's own ratio is the better start than the model's last session's."""
    calibration = session.meter.calibration
    if not calibration.calls or session.meter.counter.provisional:  # kept in tiktoken's units
        return

    ratio = round(calibration.ratio, 4)
    kept = _kept.get(session.session_id)
    if kept is not None and abs(ratio - kept) < KEEP_STEP:
        return
    remember_ratio(session.model, session.config.model.api_base, ratio)
    if session.store is not None:
        try:
            await session.store.sessions.keep_calibration(
                session.session_id, {"model": session.model, "ratio": ratio}
            )
        except Exception as exc:  # noqa: BLE001 - the calibration is a convenience, never a failure
            log.info("could not keep the session's calibration: %s", exc)
            return  # tried again after the next turn
    _kept[session.session_id] = ratio


async def resume_calibration(session: Calibrated) -> None:
    """A resumed session starts from the ratio it learned itself, when it was learned for the
    model it uses now (the model's cached ratio, seeded at build, stays otherwise)."""
    if session.store is None:
        return
    try:
        saved = await session.store.sessions.calibration(session.session_id)
    except Exception:  # noqa: BLE001 - an older file, a locked one: the cached ratio serves
        return
    ratio = saved.get("ratio") if saved else None
    if (
        saved
        and saved.get("model") == session.model
        and isinstance(ratio, int | float)
        and 0.25 <= ratio <= 4
    ):
        session.meter.restart_from(float(ratio))
