"""`agent-tui loop`: iteration after iteration on one goal, each prompt bounded.

Each iteration is one agent turn on a prompt built from the goal, the running summary and the
raw window (agent_tui.autoloop.prompt), run from an empty history: the prompt carries the memory,
so a prompt's size never depends on how many iterations came before. The transcript in the store
still gets every message (the loop is a session like any other), each iteration's whole output
goes to the blob store, and after each iteration the session's snapshot is that iteration's
history, so opening the session in the TUI resumes from the newest memory, not the whole run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.agent.summarizer import ProviderSummarizer
from agent_tui.autoloop import events as lev
from agent_tui.autoloop import gitstate, progress
from agent_tui.autoloop.allocation import Allocation, plan
from agent_tui.autoloop.prompt import IterationPrompt, LoopFacts, build_prompt
from agent_tui.autoloop.records import OUTPUT_KEEP, PROMPT_KEEP, IterationRecord, keep
from agent_tui.autoloop.summary import LoopMemory
from agent_tui.autoloop.turn import TurnOutput
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.base.messages import ResultRef
    from agent_tui.config import LoopSettings
    from agent_tui.context.compaction.summary_prompt import Summarizer

log = logging.getLogger(__name__)


def loop_summarizer(session: AgentSession) -> Summarizer:
    """The compaction summariser; the chat model when compaction's summaries are turned off
    (the loop cannot keep its memory bounded without one)."""

    compactor = session.compactor
    return compactor.summarizer or compactor.fallback or ProviderSummarizer(session.provider)


class LoopRunner:
    """Runs the loop on one session. Iterate `run()` for its events."""

    def __init__(self, session: AgentSession, goal: str, settings: LoopSettings) -> None:
        self.session = session
        self.goal = goal.strip()
        self.settings = settings
        self.counter = session.meter.counter
        self.counter.wait_exact()  # each iteration's prompt is fitted to the window by these counts
        self.records: list[IterationRecord] = []
        self.prompts: list[IterationPrompt] = []
        """Every iteration's prompt as built (tests and the JSON events read them)."""
        self.memory = LoopMemory(
            summarizer=loop_summarizer(session),
            counter=self.counter,
            window=session.compactor.summarizer_window or session.limits.context_window,
            settings=settings,
            goal=self.goal,
            store=session.store,
            session_id=session.session_id,
        )
        self.goal_ref: ResultRef | None = None
        self.stall_count = 0
        self.reason: str | None = None
        self._seen_markers: set[str] = set()
        self._seen_errors: set[str] = set()

    async def run(self) -> AsyncIterator[ev.AgentEvent]:
        """Loop events (iteration_started/finished, summary_*, loop_finished) with the agent's
        own events of each turn in between."""
        s = self.settings
        yield lev.LoopStarted(
            self.session.session_id,
            self.goal,
            self.session.model,
            {
                "max_iterations": s.max_iterations,
                "raw_window_size": s.raw_window_size,
                "summarize_every": s.summarize_every,
                "max_summary_tokens": s.max_summary_tokens,
                "stall_limit": s.stall_limit,
            },
        )
        last_text = ""
        for number in range(1, s.max_iterations + 1):
            async for event in self._iteration(number):
                if isinstance(event, ev.TurnFinished):
                    last_text = event.text or last_text
                yield event
            self.reason = self._stop_reason(self.records[-1])
            if self.reason:
                break
            async for event in self.memory.after_iteration(self.records, self.prompts[-1].allocation.summary):
                yield event
        yield lev.LoopFinished(
            self.reason or "max_iterations", len(self.records), self.session.session_id, last_text
        )

    def _stop_reason(self, record: IterationRecord) -> str | None:
        if record.stop_reason == "error":
            return "error"
        if record.complete:
            return "complete"
        if self.stall_count >= self.settings.stall_limit:
            return "stalled"
        if record.number >= self.settings.max_iterations:
            return "max_iterations"
        return None

    def _allocation(self) -> Allocation:
        budget = self.session.measure(with_status=False)
        return plan(budget.effective_window, budget.fixed, self.settings.max_summary_tokens)

    async def _prompt(self, number: int, git: bool) -> IterationPrompt:
        allocation = self._allocation()
        if (
            self.goal_ref is None
            and self.session.store is not None
            and self.counter.count_text("## Goal\n" + self.goal) > allocation.goal
        ):
            try:
                self.goal_ref = await self.session.store.results.offload(
                    self.session.session_id, "loop_goal", "goal", self.goal
                )
            except Exception:
                log.exception("could not store the loop goal")
        facts = LoopFacts(
            number,
            self.settings.max_iterations,
            self.session.model,
            self.stall_count,
            self.settings.stall_limit,
            git,
        )
        return build_prompt(
            goal=self.goal,
            goal_ref=self.goal_ref,
            summary=self.memory.summary,
            raw=self.memory.raw(self.records),
            facts=facts,
            allocation=allocation,
            counter=self.counter,
        )

    async def _iteration(self, number: int) -> AsyncIterator[ev.AgentEvent]:
        session = self.session
        # The prompt carries the memory: every iteration starts from an empty history.
        await session.adopt_history([])
        before = await gitstate.snapshot(session.workspace)
        prompt = await self._prompt(number, before is not None)
        self.prompts.append(prompt)
        summary = self.memory.summary
        yield lev.IterationStarted(
            number,
            prompt.tokens,
            prompt.used,
            prompt.allocation.to_json(),
            prompt.raw_numbers,
            (summary.first, summary.last) if summary else None,
        )
        started_at, started = time.time(), time.monotonic()
        turn = TurnOutput()
        async for event in session.run_turn(prompt.text, as_is=True):
            turn.feed(event)
            yield event
        duration = time.monotonic() - started
        after = await gitstate.snapshot(session.workspace)
        changed = await gitstate.changed_files(before, after, self._own_files())
        record = await self._record(number, prompt, turn, started_at, duration, changed)
        self.records.append(record)
        await self._save_snapshot()
        yield lev.IterationFinished(
            number,
            record.score,
            record.markers,
            record.new_markers,
            record.files_changed,
            record.ref.id if record.ref else None,
            round(duration, 3),
            record.prompt_tokens,
            record.output_chars,
            record.tool_calls,
            record.complete,
            record.stop_reason,
        )

    def _own_files(self) -> list[Path]:
        """agent-tui's database and state: they change every iteration, the work does not."""
        own = [paths.data_dir(), paths.state_dir()]
        store = self.session.store
        if store is not None:
            db = Path(store.path)
            own += [db.with_name(db.name + suffix) for suffix in ("", "-wal", "-shm", "-journal")]
        return own

    async def _record(
        self,
        number: int,
        prompt: IterationPrompt,
        turn: TurnOutput,
        started_at: float,
        duration: float,
        files: tuple[str, ...],
    ) -> IterationRecord:
        output = turn.output
        ref = None
        if output and self.session.store is not None:
            try:
                ref = await self.session.store.results.offload(
                    self.session.session_id, "loop_iteration", f"iter-{number}", output
                )
            except Exception:
                log.exception("could not store the output of iteration %d", number)
        said = turn.assistant_text
        markers = progress.parse_markers(said)
        new = progress.new_markers(markers, self._seen_markers)
        self._seen_markers |= {progress.marker_key(m) for m in markers}
        repeated = sum(1 for sig in turn.failures if sig in self._seen_errors)
        self._seen_errors |= set(turn.failures)
        self.stall_count = 0 if new else self.stall_count + 1
        return IterationRecord(
            number=number,
            started_at=started_at,
            model=self.session.model,
            prompt=keep(prompt.text, PROMPT_KEEP),
            prompt_tokens=prompt.tokens,
            output=keep(output, OUTPUT_KEEP),
            output_chars=len(output),
            ref=ref,
            markers=markers,
            new_markers=new,
            files_changed=files,
            errors=tuple(turn.failures),
            repeated_errors=repeated,
            score=progress.score(len(new), len(files), repeated),
            tool_calls=turn.tool_calls,
            duration=duration,
            stop_reason=turn.stop_reason,
            complete=progress.says_complete(said),
        )

    async def _save_snapshot(self) -> None:
        """Resume (the TUI, `run --session`) starts from the newest iteration, not the run."""
        session = self.session
        if session.store is None:
            return
        try:
            through = await session.store.sessions.last_sequence(session.session_id)
            tokens = sum(self.counter.count_message(m) for m in session.history)
            await session.store.sessions.save_snapshot(session.session_id, session.history, tokens, through)
        except Exception:
            log.exception("could not save the loop snapshot")
