"""A running command's output, live (issue 43 part 3, item 1): while bash or `!cmd` runs, its
newest lines show under the call and move, as Claude Code's do; when it ends they settle into the
finished view. Before, a running call showed only `running 3.2 s` until it was over. The command
waits for a file the test writes, so "still running" is a fact, not a race."""

from __future__ import annotations

import json

import pytest

from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.frontends.tui.widgets.live_tail import LiveTail
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until

SMALL = (80, 24)
WAITS = "printf 'first\\nsecond\\n'; while [ ! -e go ]; do sleep 0.02; done; echo third"


@pytest.fixture
def config(server, tmp_path, workspace):
    return make_config(
        server, tmp_path / "live.db", cwd=workspace, tools={"allow": ["bash"]}, sandbox={"mode": "off"}
    )


def running_line(app) -> ToolLine | None:
    return next((line for line in app.query(ToolLine) if line.entry.state == "running"), None)


class TestLiveOutput:
    async def test_a_bang_command_shows_its_lines_while_it_runs(self, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, f"!{WAITS}")
            await until(pilot, lambda: "⎿ first" in screen_text(app), what="the live lines")
            assert "second" in screen_text(app)
            assert running_line(app) is not None  # still running: the lines came while it ran
            (workspace / "go").touch()
            await until(pilot, lambda: not app.view.busy and running_line(app) is None, what="the end")
            await settle(pilot)
            text = screen_text(app)
        assert "⎿ first" in text and "third" in text  # the finished view, first lines first

    async def test_a_models_bash_call_shows_its_lines_while_it_runs(self, server, config, workspace):
        server.enqueue(Reply(tool_calls=[("bash", {"command": WAITS})]), Reply(text="all three"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "count")
            await until(pilot, lambda: "⎿ first" in screen_text(app), what="the live lines")
            line = running_line(app)
            assert line is not None and "second" in screen_text(app)
            (workspace / "go").touch()
            await until(pilot, lambda: "all three" in screen_text(app), what="the reply")
            await settle(pilot)
            assert "third" in screen_text(app)  # settled into the finished view


class TestLiveTail:
    def test_the_tail_keeps_the_newest_lines_and_a_redrawn_progress_line(self):
        tail = LiveTail()
        tail.add("".join(f"row {i}\n" for i in range(1, 1001)))
        tail.add("progress 10%\rprogress 55%")
        assert tail.shown() == ["row 997", "row 998", "row 999", "row 1000", "progress 55%"]
        assert tail.count == 1000


def test_run_json_streams_the_output_before_the_call_finishes(server, tmp_path, workspace):
    """`run --json "!cmd"`: tool_output events carry the output while the call runs."""
    from tests.support.cli import flags, run_cli

    done = run_cli(
        ["run", "--json", "!printf 'a\\nb\\n'", "--sandbox", "off", *flags(server, tmp_path / "j.db")],
        workspace,
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    kinds = [e["type"] for e in events]
    assert "tool_output" in kinds
    assert kinds.index("tool_output") < kinds.index("tool_call_finished")
    said = "".join(e["text"] for e in events if e["type"] == "tool_output")
    assert said == "a\nb\n"


class TestLiveOutputBuffer:
    def test_pieces_between_two_looks_are_one_bounded_event(self):
        """A burst becomes one event holding its newest KEEP_BYTES and how much was left out;
        a character split between two pieces arrives whole."""
        from agent_tui.agent.live_output import KEEP_BYTES, LiveOutput

        live = LiveOutput()
        feed = live.feeder("c1")
        for _ in range(100):
            feed(b"x" * 200 + b"\n")
        (event,) = live.take()
        assert len(event.text.encode()) == KEEP_BYTES and event.skipped == 100 * 201 - KEEP_BYTES
        assert live.take() == [] and not live.ready.is_set()
        euro = "€".encode()
        feed(euro[:1])
        first = live.take()
        feed(euro[1:] + b"\n")
        second = live.take()
        assert "".join(e.text for e in first + second) == "€\n"
