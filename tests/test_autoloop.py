"""Autonomous loop mode against the strict local server: bounded prompts over 40 iterations
(checked in the request bodies the server received), the summary as the summariser's own reply
covering exactly the iterations outside the raw window, every way the loop stops, and a failing
summariser."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.autoloop import LoopRunner
from agent_tui.autoloop import events as lev
from agent_tui.base.tokens import TokenCounter
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI
from tests.support.agent_fixtures import make_config
from tests.support.autoloop import Logged, LoopModel


def git_workspace(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def prompt_parts(prompt: str) -> dict[str, str]:
    """The iteration prompt cut where the loop joins its parts."""
    goal = prompt.index("\n\n## Goal\n")
    summary = prompt.index("\n\n## Summary")
    raw = prompt.index("\n\n## Recent iteration")
    state = prompt.index("\n\n## Current state")
    return {
        "heading": prompt[:goal],
        "goal": prompt[goal + 2 : summary],
        "summary": prompt[summary + 2 : raw],
        "raw": prompt[raw + 2 : state],
        "rest": prompt[state + 2 :],
    }


ALLOCATION_LINE = re.compile(
    r"Prompt allocation: goal ([\d,]+) · summary ([\d,]+) · raw "
    r"iterations ([\d,]+) · instructions ([\d,]+) tokens"
)


def allocation_in(prompt: str) -> dict[str, int]:
    """The allocation the prompt itself states."""
    found = ALLOCATION_LINE.search(prompt)
    assert found, "the prompt shows its allocation"
    values = [int(v.replace(",", "")) for v in found.groups()]
    return dict(zip(("goal", "summary", "raw", "instructions"), values, strict=False))


def over_allocation(prompt: str, allocation: dict[str, int], counter: Any) -> dict[str, int]:
    """Parts of a sent prompt that exceed their share (empty when all fit)."""
    parts = prompt_parts(prompt)
    used = {
        "goal": counter.count_text(parts["goal"]),
        "summary": counter.count_text(parts["summary"]),
        "raw": counter.count_text(parts["raw"]),
        "instructions": counter.count_text(parts["heading"]) + counter.count_text(parts["rest"]),
    }
    return {k: v for k, v in used.items() if v > allocation[k]}


COUNTER = TokenCounter("openai/fake-model")
RAW_HEADING = re.compile(r"^### Iteration (\d+) ·", re.M)


@dataclass
class LoopRun:
    services: Any
    session: Any
    runner: LoopRunner
    events: list

    def of(self, cls: type) -> list:
        return [e for e in self.events if isinstance(e, cls)]

    @property
    def finished(self) -> lev.LoopFinished:
        assert isinstance(self.events[-1], lev.LoopFinished)
        return self.events[-1]


async def run_loop(
    server: FakeOpenAI,
    tmp_path: Path,
    workspace: Path,
    *,
    goal: str = "Write step files until the plan is done",
    window: int = 32_000,
    **loop: Any,
) -> LoopRun:
    cfg = make_config(server, tmp_path / "loop.db", window=window, loop=loop)
    services = await build_services(cfg, workspace=workspace)
    session = await services.new_session(yes=True)
    runner = LoopRunner(session, goal, cfg.loop)
    try:
        events = [e async for e in runner.run()]
    except BaseException:
        await services.close()
        raise
    return LoopRun(services, session, runner, events)


def check_summary_and_window(model: LoopModel, window: int) -> int:
    """Replays the requests in order: each prompt's summary is the newest summariser reply and
    covers exactly the iterations before the raw window, which holds all the rest. Returns how
    many prompts carried a summary."""
    current: Logged | None = None
    with_summary = 0
    for entry in model.log:
        if entry.kind == "summary":
            current = entry
            continue
        if entry.kind != "iteration":
            continue
        n = entry.number
        parts = prompt_parts(entry.body["messages"][1]["content"])
        outside = n - 1 - window
        covered = current.covers[1] if current else 0
        raw = [int(x) for x in RAW_HEADING.findall(parts["raw"])]
        assert raw == list(range(covered + 1, n)), (n, raw)
        if current is None:
            assert "None yet" in parts["summary"]
            continue
        with_summary += 1
        assert covered <= max(outside, 0)
        label = f"## Summary of iterations 1–{covered} (by the summariser after iteration "
        assert parts["summary"].startswith(label)
        assert parts["summary"].split("\n", 1)[1] == current.reply, "the reply, verbatim"
        assert "<progress>" not in parts["summary"] and " report. " not in parts["summary"]
    return with_summary


class TestFortyIterations:
    async def test_forty_iterations_bounded_prompts_and_a_real_summary(self, tmp_path):
        """40 iterations: every prompt the server received fits its allocation part by part and
        starts from an empty history; the summary in it is the summariser's reply covering
        exactly 1..n-1-W; outputs are whole in the blob store; resume starts from the last
        iteration."""
        model = LoopModel()
        ws = git_workspace(tmp_path / "ws")
        with FakeOpenAI(window=32_000, responder=model) as srv:
            run = await run_loop(srv, tmp_path, ws, max_iterations=40)
            try:
                assert run.finished.reason == "max_iterations" and run.finished.iterations == 40
                iterations = model.of("iteration")
                assert [e.number for e in iterations] == list(range(1, 41))
                for entry, built in zip(iterations, run.runner.prompts, strict=False):
                    messages = entry.body["messages"]
                    assert [m["role"] for m in messages] == ["system", "user"], "empty history"
                    prompt = messages[1]["content"]
                    assert prompt == built.text
                    alloc = allocation_in(prompt)
                    assert over_allocation(prompt, alloc, COUNTER) == {}, entry.number
                    assert alloc == {k: v for k, v in built.allocation.to_json().items() if k in alloc}
                    # A 32k window cannot hold the 33 500-token allocation: scaled in proportion.
                    assert built.allocation.scale < 1
                    assert abs(alloc["raw"] / alloc["goal"] - 30) < 0.3
                    assert abs(alloc["summary"] / alloc["goal"] - 2) < 0.02
                    assert COUNTER.count_text(prompt) <= sum(alloc.values())
                late = max(srv.prompt_tokens_of(e.body) for e in iterations[20:])
                early = max(srv.prompt_tokens_of(e.body) for e in iterations[5:10])
                assert late <= early + 100, "prompts stop growing once the window is full"

                assert check_summary_and_window(model, 5) == 34
                summaries = model.of("summary")
                assert [s.covers for s in summaries] == [(1, k) for k in range(1, 35)]
                for s in summaries:
                    after = s.covers[1] + 5
                    request = s.body["messages"][-1]["content"]
                    headings = [int(x) for x in RAW_HEADING.findall(request)]
                    if after % 10 == 0:
                        assert "write the summary afresh" in request
                        assert headings == list(range(1, s.covers[1] + 1))
                    else:
                        assert headings == [s.covers[1]]
                        assert (s.covers[1] == 1) == ("Previous summary" not in request)
                    assert f"Iteration {s.covers[1]} report." in request
                    # The summary made after iteration `after` gets that iteration's allocation
                    # (the budget recalibrates on the server's own counts as the run goes on).
                    assert s.body["max_tokens"] == run.runner.prompts[after - 1].allocation.summary
                assert len(run.of(lev.SummaryUpdated)) == 34

                store = run.session.store
                for record in run.runner.records:
                    wrote = record.number % 3 == 0
                    assert record.files_changed == ((f"step_{record.number}.txt",) if wrote else ())
                    assert record.score == (0.43 if wrote else 0.3)
                    assert len(record.output) <= 5000 < record.output_chars
                    assert len(record.prompt) <= 500
                    whole = await store.results.get_text(record.ref)
                    assert len(whole) == record.output_chars
                    assert f"<progress>step {record.number} done</progress>" in whole
                finished = run.of(lev.IterationFinished)[-1].to_json()
                assert {
                    "number",
                    "score",
                    "markers",
                    "files_changed",
                    "ref",
                    "duration",
                    "prompt_tokens",
                } <= set(finished)

                transcript = await store.sessions.transcript(run.session.session_id)
                prompts = [m.content for m in transcript if m.role == "user"]
                assert prompts == [p.text for p in run.runner.prompts]
                resumed = await run.services.resume_session(run.session.session_id)
                assert resumed.history[0].content == run.runner.prompts[-1].text
                assert len(resumed.history) == len(run.session.history)
            finally:
                await run.services.close()


class TestStopping:
    async def test_stops_on_complete(self, tmp_path, workspace):
        """<promise>COMPLETE</promise> ends the loop after that iteration."""
        with FakeOpenAI(window=32_000, responder=LoopModel(complete_at=4)) as srv:
            run = await run_loop(srv, tmp_path, workspace, max_iterations=10)
            await run.services.close()
        assert (run.finished.reason, run.finished.iterations) == ("complete", 4)
        assert run.runner.records[-1].complete and "<promise>COMPLETE" in run.finished.text

    async def test_stops_at_max_iterations(self, tmp_path, workspace):
        """--max-iterations caps the run even while it makes progress."""
        model = LoopModel(tool_every=0)
        with FakeOpenAI(window=32_000, responder=model) as srv:
            run = await run_loop(srv, tmp_path, workspace, max_iterations=3)
            await run.services.close()
        assert (run.finished.reason, run.finished.iterations) == ("max_iterations", 3)
        assert not model.of("summary"), "nothing has left the raw window yet"

    async def test_stops_after_stall_limit_iterations_without_new_markers(self, tmp_path):
        """Repeating an old marker is no progress: three such iterations stop the loop (a
        changed file still scores, but does not reset the stall count)."""
        ws = git_workspace(tmp_path / "ws")
        with FakeOpenAI(window=32_000, responder=LoopModel(markers_until=2)) as srv:
            # The database sits in the repository: its writes are not the work's changes.
            run = await run_loop(srv, ws, ws, max_iterations=20, stall_limit=3)
            await run.services.close()
        assert (run.finished.reason, run.finished.iterations) == ("stalled", 5)
        stalled = run.runner.records[2:]
        assert all(r.markers == ("step 1 done",) and not r.new_markers for r in stalled)
        assert [r.score for r in stalled] == [0.13, 0.0, 0.0]  # iteration 3 wrote a file

    async def test_stops_on_a_provider_error(self, tmp_path, workspace):
        """A failure the provider's retries cannot fix ends the loop with reason error."""
        with FakeOpenAI(window=32_000, responder=LoopModel(error_at=2)) as srv:
            run = await run_loop(srv, tmp_path, workspace, max_iterations=10)
            await run.services.close()
        assert (run.finished.reason, run.finished.iterations) == ("error", 2)
        failed = run.runner.records[-1]
        assert failed.stop_reason == "error" and failed.errors
        assert "[error auth]" in failed.output


class TestSummariserFailure:
    async def test_failing_summariser_keeps_raw_and_retries_at_the_next_interval(self, tmp_path):
        """Summaries fail (HTTP 500) until they cover 10+: the iterations stay raw (cut harder to
        stay in budget), no request is made before the next interval, and the loop goes on."""
        model = LoopModel(fail_summary=lambda first, last: last < 10)
        ws = git_workspace(tmp_path / "ws")
        with FakeOpenAI(window=16_000, responder=model) as srv:
            run = await run_loop(
                srv, tmp_path, ws, window=16_000, max_iterations=20, raw_window_size=3, summarize_every=5
            )
            await run.services.close()
        assert (run.finished.reason, run.finished.iterations) == ("max_iterations", 20)
        failed = run.of(lev.SummaryFailed)
        assert [(f.after_iteration, f.wanted, f.retry_at) for f in failed] == [
            (4, (1, 1), 5),
            (5, (1, 2), 10),
            (10, (1, 7), 15),
        ]
        assert len(model.of("summary_failed")) == 9, "three tries per attempt, then give up"
        asked_after = []
        last_iteration = 0
        for entry in model.log:
            if entry.kind == "iteration":
                last_iteration = entry.number
            elif (last_iteration, entry.kind) not in asked_after:
                asked_after.append((last_iteration, entry.kind))
        assert [n for n, _ in asked_after] == [4, 5, 10, 15, 16, 17, 18, 19]
        updated = run.of(lev.SummaryUpdated)
        assert (updated[0].after_iteration, updated[0].covers, updated[0].mode) == (15, (1, 12), "regenerate")
        assert check_summary_and_window(model, 3) == 5  # the prompts of iterations 16..20
        prompts = run.runner.prompts
        assert prompts[14].raw_numbers == tuple(range(1, 15)), "all raw while failing"
        assert prompts[15].raw_numbers == (13, 14, 15)
        assert min(p.excerpt_chars for p in prompts) < 1000, "raw cut harder to fit"
        for entry in model.of("iteration"):
            prompt = entry.body["messages"][1]["content"]
            assert over_allocation(prompt, allocation_in(prompt), COUNTER) == {}


class TestScore:
    async def test_repeated_failures_count_against_the_score(self, tmp_path, workspace):
        """The same failing command every iteration: the first failure is free, each repeat
        takes 0.25 off the marker's 0.3; the failure shows in the raw window."""
        model = LoopModel(failing_command="ls /no/such/dir-1", tool_every=0)
        with FakeOpenAI(window=32_000, responder=model) as srv:
            run = await run_loop(srv, tmp_path, workspace, max_iterations=3)
            await run.services.close()
        records = run.runner.records
        assert [r.repeated_errors for r in records] == [0, 1, 1]
        assert [r.score for r in records] == [0.3, 0.05, 0.05]
        assert "Failures: 1 (1 seen before)" in run.runner.prompts[2].parts["raw"]
        assert "[tool bash] ls /no/such/dir-1 → exit 2" in records[0].output


class TestEdgeCases:
    async def test_first_iteration_empty_output_and_no_git(self, tmp_path, workspace):
        """Iteration 1 has no summary and no raw iterations; an empty output is recorded and
        named in the summary's label; outside git no files are tracked."""
        model = LoopModel(empty_at=(2,), tool_every=0)
        with FakeOpenAI(window=32_000, responder=model) as srv:
            run = await run_loop(srv, tmp_path, workspace, max_iterations=6, raw_window_size=2)
            await run.services.close()
        first = prompt_parts(run.runner.prompts[0].text)
        assert first["summary"] == "## Summary\nNone yet: this is the first iteration."
        assert first["raw"] == "## Recent iterations\nNone yet."
        assert "not a git repository" in first["rest"]
        empty = run.runner.records[1]
        assert empty.empty and empty.ref is None and empty.score == 0.0
        assert "Output: empty" in run.runner.prompts[2].parts["raw"]
        request = model.of("summary")[1].body["messages"][-1]["content"]
        assert "Iteration 2 ·" in request and "Output: empty" in request
        label = prompt_parts(run.runner.prompts[5].text)["summary"].splitlines()[0]
        assert label.endswith("; empty output in iteration(s) 2)")
        assert all(r.files_changed == () for r in run.runner.records)
