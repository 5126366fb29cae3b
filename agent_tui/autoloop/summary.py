"""The running summary: older iterations folded in by the summariser, regenerated on a schedule.

After each iteration, the iterations that left the raw window are folded into the summary (the
previous summary plus those iterations, condensed by the summariser). Every `summarize_every`
iterations the summary is instead written afresh from every record, so the errors of many
successive folds do not pile up. When the summariser fails, the iterations stay raw (the prompt
shows them) and the next try waits for the next regeneration point.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from agent_tui.autoloop import events as lev
from agent_tui.autoloop.allocation import clip_tokens
from agent_tui.autoloop.prompt import render_record
from agent_tui.autoloop.records import OUTPUT_KEEP, IterationRecord, LoopSummary
from agent_tui.base.messages import Message, ResultRef

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter
    from agent_tui.config import LoopSettings
    from agent_tui.context.compaction import Summarizer
    from agent_tui.store import Store

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
You keep the memory of an autonomous loop: a coding agent runs iteration after iteration \
towards the goal below, and each iteration sees only your summary and the newest iterations. \
{task}

Goal: {goal}

Write the summary of iterations {first}–{last} in at most {tokens} tokens, plain text under \
these headings:
Decisions — what was decided, and why.
What worked — the steps that succeeded and the progress they reported.
What failed and why — each distinct failure once, with its cause, so it is not retried blindly.
Current state — the files, tests and results that exist now.
Next steps — what should happen next.
Leave out logs, command output and repeated errors; name the iterations whose output was empty. \
Do not call tools."""

FOLD_TASK = (
    "The conversation holds the previous summary and the iterations that just left "
    "the raw window; merge them into one summary."
)
REGENERATE_TASK = (
    "The conversation holds the record of every iteration so far (outputs "
    "shortened); write the summary afresh from them."
)
OUTPUT_STEPS = (OUTPUT_KEEP, 3000, 2000, 1000, 500, 200, 0)
"""Characters of each iteration's output given to the summariser, tried until the request fits."""
REQUEST_OVERHEAD = 300
"""Tokens for the summariser's system message, the transcript labels and the reply priming."""
GOAL_CHARS = 2000


class LoopMemory:
    """The summary and its schedule. `raw(records)` is what the summary does not cover yet."""

    def __init__(
        self,
        *,
        summarizer: Summarizer | None,
        counter: TokenCounter,
        window: int,
        settings: LoopSettings,
        goal: str,
        store: Store | None,
        session_id: str,
    ) -> None:
        self.summarizer = summarizer
        self.counter = counter
        self.window = window
        """The summariser's context window (requests are fitted to it)."""
        self.settings = settings
        self.goal = goal
        self.store = store
        self.session_id = session_id
        self.summary: LoopSummary | None = None
        self.retry_at: int | None = None
        """After a failure: the iteration at which to try again."""
        self.requests = 0
        """Summariser calls made (successful or not)."""

    @property
    def covered(self) -> int:
        return self.summary.last if self.summary else 0

    def raw(self, records: Sequence[IterationRecord]) -> list[IterationRecord]:
        """The records the prompt must show raw: every one the summary does not cover."""
        return [r for r in records if r.number > self.covered]

    async def after_iteration(
        self, records: Sequence[IterationRecord], summary_tokens: int
    ) -> AsyncIterator[lev.SummaryUpdated | lev.SummaryFailed]:
        """Fold or regenerate as the schedule says; yields SummaryUpdated or SummaryFailed."""
        n = records[-1].number
        outside = n - self.settings.raw_window_size
        if outside <= 0:
            return
        if self.retry_at is not None and n < self.retry_at:
            return  # the summariser failed: keep raw until the next interval
        regenerate = n % self.settings.summarize_every == 0 or self.retry_at is not None
        if not regenerate and outside <= self.covered:
            return
        older = [r for r in records if r.number <= outside]
        if regenerate:
            task, mode, material = REGENERATE_TASK, "regenerate", older
        else:
            task, mode = FOLD_TASK, "fold"
            material = [r for r in older if r.number > self.covered]
        max_tokens = max(64, min(self.settings.max_summary_tokens, summary_tokens))
        try:
            text = await self._ask(
                task, material, 1, outside, max_tokens, None if regenerate else self.summary
            )
        except Exception as exc:  # noqa: BLE001 - any summariser failure: keep raw, retry later
            log.warning("loop summary of iterations 1–%d failed: %s", outside, exc)
            every = self.settings.summarize_every
            self.retry_at = (n // every + 1) * every
            yield lev.SummaryFailed((1, outside), _one_line(exc), self.retry_at, n)
            return
        self.retry_at = None
        ref = await self._offload(text, outside, n)
        empty = tuple(r.number for r in older if r.empty)
        self.summary = LoopSummary(text, 1, outside, n, mode, self.counter.count_text(text), ref, empty)
        yield lev.SummaryUpdated((1, outside), mode, self.summary.tokens, ref.id if ref else None, n)

    async def _ask(
        self,
        task: str,
        records: Sequence[IterationRecord],
        first: int,
        last: int,
        max_tokens: int,
        previous: LoopSummary | None,
    ) -> str:
        if self.summarizer is None:
            raise RuntimeError("no summariser is available")
        goal = self.goal if len(self.goal) <= GOAL_CHARS else self.goal[:GOAL_CHARS] + " […]"
        instructions = INSTRUCTIONS.format(task=task, goal=goal, first=first, last=last, tokens=max_tokens)
        budget = self.window - max_tokens - self.counter.count_text(instructions) - REQUEST_OVERHEAD
        material = self._material(records, previous, max(0, int(budget * 0.9)))
        self.requests += 1
        text = await self.summarizer([Message(role="user", content=material)], instructions, max_tokens)
        text = (text or "").strip()
        for tag in ("<summary>", "</summary>"):
            text = text.replace(tag, "")
        text = text.strip()
        if not text:
            raise RuntimeError("the summariser returned nothing")
        return text

    def _material(self, records: Sequence[IterationRecord], previous: LoopSummary | None, budget: int) -> str:
        """The records (and previous summary) as text, outputs shortened until it fits."""
        intro = ""
        if previous is not None:
            intro = f"Previous summary (iterations {previous.first}–{previous.last}):\n{previous.text}\n\n"
        text = ""
        for chars in OUTPUT_STEPS:
            text = intro + "\n\n".join(render_record(r, chars) for r in records)
            if self.counter.count_text(text) <= budget:
                return text
        return clip_tokens(text, budget, self.counter)

    async def _offload(self, text: str, last: int, n: int) -> ResultRef | None:
        if self.store is None:
            return None
        try:
            return await self.store.results.offload(
                self.session_id, "loop_summary", f"summary-1-{last}-after-{n}", text
            )
        except Exception:
            log.exception("could not store the loop summary")
            return None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]
