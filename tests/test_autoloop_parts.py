"""The loop's parts on their own: score, markers, allocation, cutting to tokens, the prompt's
parts, the summary schedule (with a plain async summariser), and changed files from real git."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import replace

import pytest

from agent_tui.autoloop import allocation, gitstate, progress
from agent_tui.autoloop.prompt import LoopFacts, build_prompt
from agent_tui.autoloop.records import IterationRecord, LoopSummary, keep
from agent_tui.autoloop.summary import LoopMemory
from agent_tui.base.messages import ResultRef
from agent_tui.base.tokens import TokenCounter
from agent_tui.config import LoopSettings

COUNTER = TokenCounter("openai/fake-model")


def record(n: int, output: str = "", **kw) -> IterationRecord:
    values = dict(
        number=n,
        started_at=0.0,
        model="m",
        prompt="p",
        prompt_tokens=10,
        output=keep(output, 5000),
        output_chars=len(output),
        ref=ResultRef(f"r_{n:010x}", len(output), 1, "loop_iteration") if output else None,
        markers=(f"step {n}",),
        new_markers=(f"step {n}",),
        files_changed=(),
        errors=(),
        repeated_errors=0,
        score=0.3,
        tool_calls=0,
        duration=1.0,
        stop_reason="done",
        complete=False,
    )
    values.update(kw)
    return IterationRecord(**values)


class TestProgress:
    def test_markers_promise_and_newness(self):
        """Markers are trimmed, compared without case or end punctuation; COMPLETE is found."""
        text = "did it <progress> Tests  pass </progress> and <progress>Docs.</progress>"
        assert progress.parse_markers(text) == ("Tests pass", "Docs.")
        assert progress.new_markers(("tests pass!", "API done", "api done"), {"tests pass"}) == ("API done",)
        assert progress.says_complete("ok\n<promise> COMPLETE </promise>")
        assert not progress.says_complete("<promise>almost</promise>")

    def test_score_formula(self):
        """0.6 for 2+ new markers, 0.4 for 3+ files, −0.25 per repeated failure, clamped."""
        assert progress.score(0, 0, 0) == 0.0
        assert progress.score(1, 0, 0) == 0.3
        assert progress.score(2, 3, 0) == 1.0
        assert progress.score(5, 9, 0) == 1.0
        assert progress.score(1, 1, 0) == 0.43
        assert progress.score(2, 0, 1) == 0.35
        assert progress.score(0, 0, 3) == 0.0

    def test_error_signature_ignores_numbers_and_refs(self):
        """The same failure on another line or run, with another ref, has the same signature."""
        a = progress.error_signature(
            "bash", "x\nerror at line 12 (r_0123456789)\n[exit code 1 · 0.1 s]", "pytest -q"
        )
        b = progress.error_signature(
            "bash", "y\nerror at line 40 (r_9876543210)\n[exit code 1 · 2 s]", "pytest -q"
        )
        assert a == b and "error at line #" in a
        assert a != progress.error_signature("bash", "other failure", "pytest -q")


class TestAllocation:
    def test_base_shares_when_the_window_is_large(self):
        """A 200k window holds goal 1 000, summary 2 000, raw 30 000, instructions 500."""
        plan = allocation.plan(192_000, 3_000)
        assert (plan.goal, plan.summary, plan.raw, plan.instructions, plan.scale) == (
            1000,
            2000,
            30_000,
            500,
            1.0,
        )

    def test_scaled_in_proportion_with_an_instruction_floor(self):
        """Half of what the window leaves after the fixed parts, shared in proportion; the
        instructions never drop under 200."""
        plan = allocation.plan(24_000, 2_000)
        assert plan.room == 11_000
        assert plan.scale == pytest.approx((11_000 - 200) / 33_000)  # after the floor
        assert plan.raw == int(30_000 * plan.scale) and plan.goal == int(1000 * plan.scale)
        assert plan.instructions == 200 and plan.total <= plan.room
        tiny = allocation.plan(6_000, 2_000)
        assert tiny.instructions == 200 and tiny.total <= tiny.room
        assert tiny.raw / tiny.goal == pytest.approx(30, rel=0.02)

    def test_clip_tokens_keeps_head_and_tail_within_the_limit(self):
        """Never over the limit, head and tail kept, the note where the rest is."""
        text = "HEAD " + " ".join(f"word{i}" for i in range(3000)) + " TAIL"
        for limit in (5, 40, 300, 2000):
            cut = allocation.clip_tokens(text, limit, COUNTER, "whole at r_1")
            assert COUNTER.count_text(cut) <= limit
        cut = allocation.clip_tokens(text, 300, COUNTER, "whole at r_1")
        assert cut.startswith("HEAD") and cut.endswith("TAIL") and "whole at r_1" in cut
        assert allocation.clip_tokens("short", 10, COUNTER) == "short"

    def test_keep_is_head_and_tail(self):
        text = "A" * 4000 + "B" * 4000
        kept = keep(text, 5000)
        assert len(kept) <= 5000 and kept.startswith("A") and kept.endswith("B")


def facts(n: int) -> LoopFacts:
    return LoopFacts(n, 50, "openai/fake-model", 0, 3, True)


class TestPrompt:
    def test_every_part_fits_under_a_tight_allocation(self):
        """Long goal, long summary and 12 long raw iterations in a small allocation: each part
        within its share, the goal and summary cut with their refs, no raw iteration dropped."""
        plan = allocation.plan(9_000, 2_000)
        goal = "Build it. " + "requirement " * 2000
        summary = LoopSummary(
            "Decisions: " + "detail " * 3000,
            1,
            5,
            17,
            "fold",
            3000,
            ResultRef("r_5555555555", 1, 1, "loop_summary"),
        )
        raw = [record(n, f"out{n} " * 1500) for n in range(6, 18)]
        built = build_prompt(
            goal=goal,
            goal_ref=ResultRef("r_6666666666", 1, 1, "loop_goal"),
            summary=summary,
            raw=raw,
            facts=facts(18),
            allocation=plan,
            counter=COUNTER,
        )
        for part in ("goal", "summary", "raw", "instructions"):
            assert built.used[part] <= getattr(plan, part), part
        assert 'read_result(ref_id="r_6666666666")' in built.parts["goal"]
        assert 'read_result(ref_id="r_5555555555")' in built.parts["summary"]
        assert built.raw_numbers == tuple(range(6, 18)) and built.excerpt_chars < 1000
        for n in range(6, 18):
            assert f"### Iteration {n} ·" in built.parts["raw"]
        assert "<promise>COMPLETE</promise>" in built.parts["instructions"]

    def test_roomy_allocation_shows_a_thousand_chars_each_with_the_ref(self):
        """With room, each raw output shows 1 000 chars (head and tail) and its ref."""
        plan = allocation.plan(192_000, 3_000)
        raw = [record(n, f"start{n} " + "x " * 3000 + f"end{n}") for n in (1, 2)]
        built = build_prompt(
            goal="g", goal_ref=None, summary=None, raw=raw, facts=facts(3), allocation=plan, counter=COUNTER
        )
        assert built.excerpt_chars == 1000
        assert "start1" in built.parts["raw"] and "end1" in built.parts["raw"]
        assert 'read_result(ref_id="r_0000000001")' in built.parts["raw"]
        assert "None yet: every earlier iteration is shown raw below." in built.text


def settings(**kw) -> LoopSettings:
    return replace(LoopSettings(), **kw)


class Summariser:
    """A summariser that answers from what it is given (and can be told to fail)."""

    model = "plain"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.fail = False

    async def __call__(self, messages, instructions, max_tokens) -> str:
        self.calls.append(messages[0].content)
        if self.fail:
            raise RuntimeError("summariser down")
        return f"summary #{len(self.calls)}"


class TestSummarySchedule:
    async def run_schedule(self, memory: LoopMemory, count: int) -> list:
        records, events = [], []
        for n in range(1, count + 1):
            records.append(record(n, f"output {n}"))
            events += [e async for e in memory.after_iteration(records, 500)]
        return events

    async def test_fold_each_time_and_regenerate_on_schedule(self):
        """After W iterations one fold per iteration; every E-th a regeneration from all."""
        s = Summariser()
        memory = LoopMemory(
            summarizer=s,
            counter=COUNTER,
            window=32_000,
            settings=settings(raw_window_size=2, summarize_every=4),
            goal="g",
            store=None,
            session_id="s",
        )
        events = await self.run_schedule(memory, 9)
        assert [(e.after_iteration, e.covers, e.mode) for e in events] == [
            (3, (1, 1), "fold"),
            (4, (1, 2), "regenerate"),
            (5, (1, 3), "fold"),
            (6, (1, 4), "fold"),
            (7, (1, 5), "fold"),
            (8, (1, 6), "regenerate"),
            (9, (1, 7), "fold"),
        ]
        assert "Previous summary (iterations 1–2):\nsummary #2" in s.calls[2]
        assert "### Iteration 1 ·" in s.calls[5] and "Previous summary" not in s.calls[5]
        assert memory.summary.text == "summary #7"
        assert [r.number for r in memory.raw([record(n) for n in range(1, 10)])] == [8, 9]

    async def test_failure_keeps_raw_until_the_next_interval(self):
        """A failure leaves the summary as it was and waits for the next regeneration."""
        s = Summariser()
        memory = LoopMemory(
            summarizer=s,
            counter=COUNTER,
            window=32_000,
            settings=settings(raw_window_size=1, summarize_every=3),
            goal="g",
            store=None,
            session_id="s",
        )
        s.fail = True
        events = await self.run_schedule(memory, 5)
        assert [(e.type, e.after_iteration, e.retry_at) for e in events] == [
            ("summary_failed", 2, 3),
            ("summary_failed", 3, 6),
        ]
        assert memory.summary is None and len(s.calls) == 2
        s.fail = False
        records = [record(n, f"output {n}") for n in range(1, 7)]
        events = [e async for e in memory.after_iteration(records, 500)]
        assert [(e.type, e.covers, e.mode) for e in events] == [("summary_updated", (1, 5), "regenerate")]

    async def test_the_request_fits_a_small_summariser_window(self):
        """Forty long records shrink until the request fits the summariser's window."""
        s = Summariser()
        memory = LoopMemory(
            summarizer=s,
            counter=COUNTER,
            window=8_000,
            settings=settings(raw_window_size=1, summarize_every=40),
            goal="g",
            store=None,
            session_id="s",
        )
        records = [record(n, f"o{n} " * 2000) for n in range(1, 41)]
        events = [e async for e in memory.after_iteration(records, 500)]
        assert events[0].mode == "regenerate" and events[0].covers == (1, 39)
        assert COUNTER.count_text(s.calls[0]) < 8_000 - 500


def git(cwd, *args):
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd, check=True, capture_output=True
    )


class TestGitState:
    async def test_changed_files_from_status_stat_and_commits(self, tmp_path):
        """Edits to an already-modified file, new files and files committed in between all
        count; untouched modified files do not."""
        git(tmp_path, "init", "-q")
        for name in ("a.txt", "b.txt", "c.txt"):
            (tmp_path / name).write_text("one\n")
        git(tmp_path, "add", ".")
        git(tmp_path, "commit", "-qm", "init")
        (tmp_path / "a.txt").write_text("two\n")
        (tmp_path / "b.txt").write_text("two\n")
        before = await gitstate.snapshot(tmp_path)
        later = time.time() + 5
        (tmp_path / "a.txt").write_text("three\n")
        os.utime(tmp_path / "a.txt", (later, later))
        (tmp_path / "new.txt").write_text("new\n")
        (tmp_path / "c.txt").write_text("changed\n")
        git(tmp_path, "commit", "-qam", "work")  # commits a, b and c
        after = await gitstate.snapshot(tmp_path)
        changed = await gitstate.changed_files(before, after)
        assert changed == ("a.txt", "b.txt", "c.txt", "new.txt")
        own = await gitstate.changed_files(before, after, [tmp_path / "new.txt"])
        assert own == ("a.txt", "b.txt", "c.txt"), "agent-tui's own files are left out"

    async def test_not_a_repository(self, tmp_path):
        assert await gitstate.snapshot(tmp_path) is None
        assert await gitstate.changed_files(None, None) == ()
