"""What /context shows, as values read off a session: no Textual here.

The screen is a picture of these values, so the tests can pin the numbers (the largest items, the
calibration, what each compaction strategy would free) without reading pixels, and the figures
come from the same objects the loop uses: the budget meter, the calibration, the compactor's log
and `estimate_savings`, which runs the real strategies on a copy of the history.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.agent.subagent_calls import window_share
from agent_tui.base.images import image_tokens, provider_rule
from agent_tui.base.units import grouped as count
from agent_tui.context.compaction import TranscriptIndex, estimate_savings
from agent_tui.context.compaction.strategies import STRATEGIES
from agent_tui.tools.base import short_arguments

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import Calibration, TokenCounter
    from agent_tui.context.budget import ContextBudget

RULES = {
    "anthropic": "Anthropic's rule: width×height/750",
    "openai": "OpenAI's rule: 85 + 170 per 512-px tile",
    "": "about 1 000 each",
}
LARGEST = 5


@dataclass(frozen=True)
class LargeItem:
    """One message of the conversation, by size."""

    role: str
    """`tool`, `user`, `agent` or `summary`."""
    label: str
    """What it is, in a few words: `bash pytest -q`, `pasted log`."""
    ref: str | None
    """The result ref holding it whole, when it was stored."""
    tokens: int
    """Its share of the window (calibrated like the component table)."""


@dataclass(frozen=True)
class CalibrationState:
    """How the estimates relate to what the provider reported."""

    calls: int
    """Provider reports the ratio averages over (0: pure tiktoken estimates)."""
    ratio: float
    """reported / estimated, averaged over those calls."""
    marginal: float | None
    """reported / estimated for text added between two calls."""
    reported: int | None
    """Prompt tokens the provider reported on the last call (None once the history was
    rewritten, or before any call)."""
    estimated: int
    """The raw estimate for that same request."""

    def describe(self) -> str:
        if not self.calls:
            return "Not calibrated yet: figures are tiktoken estimates until the provider reports usage."
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        if self.reported is None or not self.estimated:
            return (
                f"History rewritten since the last call: estimates scaled by "
                f"×{self.ratio:.3f} (last {calls}) until the next report."
            )
        diff = self.reported / self.estimated - 1
        marginal = f", new text ×{self.marginal:.2f}" if self.marginal else ""
        return (
            f"Calibrated against provider usage: last call {count(self.reported)} reported "
            f"vs {count(self.estimated)} estimated ({diff:+.1%}); ratio ×{self.ratio:.3f} "
            f"over the last {calls}{marginal}."
        )


@dataclass(frozen=True)
class ContextReport:
    """Everything /context shows except the savings (computed apart: they take a while)."""

    model: str
    budget: ContextBudget
    calibration: CalibrationState
    largest: tuple[LargeItem, ...]
    turns: tuple[tuple[int, float, bool], ...]
    """(turn, used fraction, compacted) per logged measurement, oldest first."""
    cost: float | None
    """USD spent in this session by this process; None when a price is unknown."""
    prompt_tokens: int
    """Prompt tokens the provider reported over the session, this process."""
    output_tokens: int
    enabled: tuple[str, ...]
    """The compaction strategies the config enables, in chain order."""
    skills: tuple[str, ...] = ()
    """Skills loaded in this session (their bodies are in the system prompt, under memories +
    skills, and kept through compaction)."""
    children: str | None = None
    """What the session's sub-agents cost this window (their envelopes), and their usage apart."""
    reasoning_output: int = 0
    """Output tokens spent reasoning in this run: as the provider reported them, else (Anthropic
    reports none apart) the estimates kept on the history's replies."""
    tools: str = ""
    """How the tools were held to their share of a small window (brief, what was deferred)."""
    images: tuple[int, int, str | None] = (0, 0, None)
    """Pictures in the conversation: how many, their estimated tokens (part of `conversation`),
    and which provider's rule counted them (agent_tui/base/images.py)."""
    side: tuple[str, ...] = ()
    """The pins with their tokens and the task list (kept beside the conversation)."""
    compactions: tuple[str, ...] = ()
    """This run's compactions of the session, each with what it cleared, summarised or dropped."""

    def images_line(self) -> str | None:
        """The "Images" line: how many pictures the conversation sends and what they count for."""
        n, tokens, rule = self.images
        if not n:
            return None
        how = RULES.get(rule or "", RULES[""])
        return (
            f"Images: {n} in the conversation, {count(tokens)} tokens of it ({how}; "
            "the provider reports the exact figure)"
        )

    def reasoning_line(self) -> str | None:
        """The "Reasoning" line: the thinking budget reserved, the blocks this request sends
        back, what reasoning cost in output; None for a model that does not reason."""
        b = self.budget
        if not (b.thinking_reserve or b.reasoning or self.reasoning_output):
            return None
        parts = []
        if b.thinking_reserve:
            parts.append(
                f"thinking budget {count(b.thinking_reserve)} of the {count(b.max_output_tokens)} reserved"
            )
        if b.reasoning:
            parts.append(f"{count(b.reasoning)} of the conversation are thinking blocks sent back")
        parts.append(f"{count(self.reasoning_output)} output tokens spent reasoning in this run")
        return "Reasoning: " + " · ".join(parts)


def calibration_state(calibration: Calibration) -> CalibrationState:
    return CalibrationState(
        calibration.calls,
        calibration.ratio,
        calibration.marginal,
        calibration.anchor_reported,
        calibration.anchor_estimate,
    )


def _first_words(text: str | None, width: int = 28) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= width else line[: width - 1] + "…"


def largest_items(
    history: Sequence[Message], counter: TokenCounter, ratio: float = 1.0, limit: int = LARGEST
) -> list[LargeItem]:
    """The `limit` biggest messages, biggest first, labelled the way the chat shows them."""
    calls = {call.id: call for m in history for call in m.tool_calls}
    sized = sorted(((counter.count_message(m), i) for i, m in enumerate(history)), reverse=True)
    items = []
    for tokens, index in sized[:limit]:
        message = history[index]
        ref = message.output_ref.id if message.output_ref is not None else None
        if message.kind in ("summary", "retain"):
            role, label = "summary", "earlier conversation"
        elif message.role == "tool":
            call = calls.get(message.tool_call_id or "")
            name = call.name if call else (message.name or "tool")
            args = short_arguments(call.arguments) if call else ""
            role, label = "tool", _first_words(f"{name} {args}".strip())
        elif message.role == "user":
            role, label = "user", _first_words(message.content)
        else:
            names = ", ".join(c.name for c in message.tool_calls)
            role, label = "agent", _first_words(message.content or f"calls {names}")
        items.append(LargeItem(role, label, ref, round(tokens * ratio)))
    return items


def build_report(session: AgentSession, budget: ContextBudget) -> ContextReport:
    """The report for `session` as measured by `budget` (no I/O, no model call)."""
    calibration = session.meter.calibration
    settings = session.config.compaction
    usage = session.usage_total
    return ContextReport(
        model=session.model,
        budget=budget,
        calibration=calibration_state(calibration),
        largest=tuple(largest_items(session.history, session.meter.counter, calibration.ratio)),
        turns=tuple(session.compactor.history_log),
        cost=session.cost_total,
        prompt_tokens=usage.prompt_tokens,
        output_tokens=usage.output,
        enabled=tuple(s.name for s in STRATEGIES if getattr(settings, s.name)),
        skills=session.prompts.user_prompts.active,
        children=window_share(session),
        reasoning_output=usage.reasoning
        or sum(m.reasoning.tokens for m in session.history if m.reasoning is not None),
        images=images_in(session.history, session.meter.counter.model),
        side=tuple(session.side.state.describe_lines()),
        compactions=tuple(
            earlier_lines(session.side.earlier_compactions) + compaction_lines(session.compactor.records)
        ),
        tools=tools_line(session),
    )


def earlier_lines(stored: Sequence[dict[str, Any]]) -> list[str]:
    """Compactions of earlier runs, from their stored records (a resumed session)."""
    lines = [f"Compactions in earlier runs ({len(stored)}):"] if stored else []
    for n, data in enumerate(stored, 1):
        strategies = ", ".join(data.get("strategies") or [])
        lines.append(f"  {n}. {data.get('tokens_before')} → {data.get('tokens_after')} tokens ({strategies})")
        for item in (data.get("record") or {}).get("strategies") or []:
            if item.get("replaced"):
                lines.append(f"     {item['name']}: {item['replaced']}")
            lines += [f"     ref={ref} — {label}" for ref, label in item.get("labels") or []]
    return lines


def compaction_lines(results: Sequence[Any]) -> list[str]:
    """`Compactions:` and each one's record, indented: the refs read_result brings back."""
    lines = (
        [f"Compactions this run ({len(results)}; read_result(ref_id=…) reads any item back):"]
        if results
        else []
    )
    for n, result in enumerate(results, 1):
        lines.append(f"  {n}. {result.describe()}")
        if result.record is not None:
            lines += [f"     {line}" for line in result.record.lines() if not line.startswith("summary: ")]
    return lines


def tools_line(session: AgentSession) -> str:
    """The tool share and the deferred tools with why, for the footer (empty when nothing was)."""
    prompts = session.prompts
    share = prompts.tool_share_line()
    selection = prompts.selection
    if not share or selection is None:
        return share
    deferred = ", ".join(f"{name} ({why})" if why else name for name, why in selection.reasons)
    return share + (f" Deferred: {deferred}." if deferred else "")


def images_in(history: Sequence[Message], model: str | None) -> tuple[int, int, str | None]:
    """How many pictures `history` sends, their estimated tokens, and the rule that counted them."""

    rule = provider_rule(model)
    images = [image for m in history for image in m.images]
    return len(images), sum(image_tokens(image, rule) for image in images), rule


@dataclass(frozen=True)
class Recoverable:
    """Transcript messages compaction took out of the window: stored, readable, searchable."""

    outside: int
    """Messages of the transcript the window no longer holds verbatim."""
    total: int
    """Messages in the transcript."""
    first: int
    last: int
    """The range they span (`m_<first>-<last>`)."""

    def describe(self) -> str:
        return (
            f"Earlier messages: {count(self.outside)} of {count(self.total)} are outside the window "
            f'and recoverable — the model reads them with read_result("m_{self.first}-{self.last}") '
            "or finds them with recall; /blobs shows them (F3: conversation)."
        )


async def recoverable(session: AgentSession) -> Recoverable | None:
    """How many transcript messages are out of the window (None without a store or when none)."""
    store = session.store
    if store is None:
        return None

    keys = await store.transcript.keys(session.session_id)
    index = TranscriptIndex.build(keys)
    held = {seq for m in session.history if (seq := index.seq_of(m)) is not None}
    gone = [seq for seq, *_ in keys if seq not in held]
    if not gone:
        return None
    return Recoverable(len(gone), len(keys), gone[0], gone[-1])


async def compaction_savings(session: AgentSession, budget: ContextBudget) -> dict[str, int]:
    """Tokens each strategy would free if it ran now, by running it on a copy of the history
    (in a thread: a long history takes a moment). In the calibrated units of the table."""

    history = list(session.history)
    meter = session.meter
    ratio = meter.calibration.ratio or 1.0
    # The same raw units and target as a real compaction (see Compactor.run).
    raw = meter.raw_parts(history, *session.request_parts)
    fixed_raw = sum(raw.values()) - raw["conversation"] + meter.last_reasoning
    target = int(budget.effective_window * session.config.compaction.target_ratio / ratio)

    def run() -> dict[str, int]:
        return asyncio.run(
            estimate_savings(
                history,
                counter=meter.counter,
                settings=session.config.compaction,
                target_tokens=target,
                fixed_tokens=fixed_raw,
            )
        )

    savings = await asyncio.to_thread(run)
    return {name: max(0, round(tokens * ratio)) for name, tokens in savings.items()}
