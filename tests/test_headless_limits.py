"""Issue 45 #7: `agent-tui run --max-turns N` and `--max-budget-usd X` stop where they say, with a
clear line and exit 3; a model without prices makes the budget impossible to keep, which is said
(never counted as $0). Through the real CLI against the local fake server."""

from __future__ import annotations

import json

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli


def looping(server, calls: int) -> None:
    """The model asks for one harmless command per reply, `calls` times, then answers."""
    server.enqueue(*(Reply(tool_calls=[("bash", {"command": f"echo {n}"})]) for n in range(calls)))
    server.enqueue(Reply(text="all done"))


def priced(args: list[str], cwd) -> list[str]:
    """The same server with prices the user declared (`[model] input_price_per_mtok`, in a trusted
    project file): $1 / $2 per million tokens."""
    (cwd / ".agent-tui.toml").write_text("[model]\ninput_price_per_mtok = 1.0\noutput_price_per_mtok = 2.0\n")
    return [*args, "--trust"]


class TestMaxTurns:
    def test_stops_after_n_model_calls_with_exit_3(self, server, workspace, tmp_path):
        looping(server, 5)
        done = run_cli(
            ["run", *flags(server, tmp_path / "t.db"), "--yes", "--max-turns", "2", "go"], workspace
        )
        assert done.returncode == 3, done.stderr
        assert "stopped: --max-turns 2 reached" in done.stderr
        assert len(server.requests) == 2

    def test_claude_format_says_error_max_turns(self, server, workspace, tmp_path):
        looping(server, 5)
        args = ["run", *flags(server, tmp_path / "j.db"), "--yes", "--max-turns", "1"]
        done = run_cli([*args, "--output-format", "json", "go"], workspace)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert done.returncode == 3
        assert result["subtype"] == "error_max_turns" and result["is_error"] is True

    def test_a_turn_within_the_limit_is_a_success(self, server, workspace, tmp_path):
        looping(server, 1)
        done = run_cli(
            ["run", *flags(server, tmp_path / "o.db"), "--yes", "--max-turns", "5", "go"], workspace
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "all done"


class TestMaxBudget:
    def test_stops_once_the_cost_reaches_the_budget(self, server, workspace, tmp_path):
        looping(server, 5)
        args = priced(
            ["run", *flags(server, tmp_path / "b.db"), "--yes", "--max-budget-usd", "0.000001"], workspace
        )
        done = run_cli([*args, "--json", "go"], workspace)
        assert done.returncode == 3, done.stderr
        assert "stopped: --max-budget-usd 1e-06 reached (spent $" in done.stderr
        assert len(server.requests) == 1
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert result["stop_reason"] == "max_budget" and result["ok"] is False and result["cost"] > 0

    def test_a_budget_that_is_not_reached_lets_the_turn_finish(self, server, workspace, tmp_path):
        looping(server, 2)
        args = priced(
            ["run", *flags(server, tmp_path / "n.db"), "--yes", "--max-budget-usd", "50"], workspace
        )
        done = run_cli([*args, "go"], workspace)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "all done"

    def test_unknown_prices_are_said_not_counted_as_zero(self, server, workspace, tmp_path):
        looping(server, 5)
        args = ["run", *flags(server, tmp_path / "u.db"), "--yes", "--max-budget-usd", "5"]
        done = run_cli([*args, "--output-format", "json", "go"], workspace)
        assert done.returncode == 3, done.stderr
        assert "prices are unknown, so its cost is unknown (not 0)" in done.stderr
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert result["subtype"] == "error_max_budget_usd" and result["total_cost_usd"] is None
        assert len(server.requests) == 1
