"""`agent-tui loop` as a script runs it: a real subprocess against the strict local server, JSON
events on stdout, a progress line per iteration on stderr, exit codes by how the loop ended."""

from __future__ import annotations

import json

from testkit.fake_openai import FakeOpenAI
from tests.support.autoloop import LoopModel, flags, run_loop_cli


class TestLoopCommand:
    def test_json_events_and_exit_zero_on_complete(self, tmp_path):
        """--json: one event per line, the loop's flags in loop_started, iteration_finished
        with its fields, loop_finished complete, exit 0."""
        with FakeOpenAI(window=32_000, responder=LoopModel(complete_at=3)) as srv:
            out = run_loop_cli(
                [
                    "write the steps",
                    "--json",
                    "--raw-window",
                    "1",
                    "--summarize-every",
                    "2",
                    "--stall-limit",
                    "4",
                    *flags(srv, tmp_path / "l.db"),
                ],
                tmp_path,
            )
        assert out.returncode == 0, out.stderr
        events = [json.loads(line) for line in out.stdout.splitlines()]
        types = [e["type"] for e in events]
        assert types[0] == "loop_started" and types[-1] == "loop_finished"
        assert types.count("iteration_started") == types.count("iteration_finished") == 3
        assert events[0]["settings"] == {
            "max_iterations": 50,
            "raw_window_size": 1,
            "summarize_every": 2,
            "max_summary_tokens": 2000,
            "stall_limit": 4,
        }
        assert [e["covers"] for e in events if e["type"] == "summary_updated"] == [[1, 1]]
        finished = [e for e in events if e["type"] == "iteration_finished"]
        assert [e["markers"] for e in finished] == [[f"step {n} done"] for n in (1, 2, 3)]
        assert finished[2]["files_changed"] == [] and finished[2]["ref"].startswith("r_")
        assert all(e["prompt_tokens"] > 0 and e["duration"] >= 0 for e in finished)
        assert events[-1]["reason"] == "complete" and events[-1]["iterations"] == 3

    def test_plain_progress_lines_and_exit_three_at_max_iterations(self, tmp_path):
        """Plain mode: a progress line per iteration on stderr, the last answer on stdout, and
        exit 3 when the loop stops without the goal met."""
        with FakeOpenAI(window=32_000, responder=LoopModel(tool_every=0)) as srv:
            out = run_loop_cli(
                ["write the steps", "--max-iterations", "2", *flags(srv, tmp_path / "l.db")], tmp_path
            )
        assert out.returncode == 3, out.stderr
        lines = out.stderr.splitlines()
        assert any(line.startswith("iter   1/2 ·") and "0.30" in line for line in lines)
        assert any(line.startswith("iter   2/2 ·") for line in lines)
        assert any("prompt allocation: goal" in line for line in lines)
        assert "stopped at --max-iterations after 2 iteration(s)" in out.stderr
        assert "<progress>step 2 done</progress>" in out.stdout
        assert "Traceback" not in out.stderr

    def test_bad_options_are_one_line_exit_two(self, tmp_path):
        """A zero window size or no model: one line on stderr, exit 2, no traceback."""
        out = run_loop_cli(["goal", "--raw-window", "0"], tmp_path)
        assert (
            out.returncode == 2 and out.stderr.strip() == "agent-tui: --raw-window must be at least 1, got 0"
        )
        out = run_loop_cli(["goal", "--db", str(tmp_path / "x.db")], tmp_path)
        assert out.returncode == 2 and "no model configured" in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
