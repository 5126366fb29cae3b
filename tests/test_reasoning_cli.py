"""Reasoning from the command line, in real subprocesses against the local OpenAI-compatible
server that streams `reasoning_content`: `run --effort` reaches the request, `--json` carries the
thinking as events while plain output leaves it out, and `sessions show` shows what was thought."""

from __future__ import annotations

import json

from agent_tui.runtime import paths
from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli

THOUGHT = "The user wants a greeting. A short one will do; no tools are needed here."
ANSWER = "Hello there."


class TestRunEffort:
    def test_json_streams_reasoning_events_and_the_effort_goes_out(self, server, workspace, tmp_path):
        """`--effort high --json`: reasoning_delta events before the answer, one
        reasoning_finished with tokens and duration, and reasoning_effort on the request."""
        server.enqueue(Reply(reasoning=THOUGHT, text=ANSWER))
        out = run_cli(
            ["run", "hi", "--json", "--effort", "high", *flags(server, tmp_path / "j.db")], workspace
        )
        assert out.returncode == 0, out.stderr
        events = [json.loads(line) for line in out.stdout.splitlines()]
        types = [e["type"] for e in events]
        assert "".join(e["text"] for e in events if e["type"] == "reasoning_delta") == THOUGHT
        assert types.index("reasoning_delta") < types.index("text_delta")
        (finished,) = [e for e in events if e["type"] == "reasoning_finished"]
        assert finished["tokens"] > 0 and isinstance(finished["duration"], float)
        assert types.index("reasoning_finished") > max(
            i for i, t in enumerate(types) if t == "reasoning_delta"
        )
        assert events[-1]["text"] == ANSWER
        assert server.requests[-1]["reasoning_effort"] == "high"

    def test_plain_output_leaves_the_thinking_out(self, server, workspace, tmp_path):
        server.enqueue(Reply(reasoning=THOUGHT, text=ANSWER))
        out = run_cli(["run", "hi", *flags(server, tmp_path / "p.db")], workspace)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == ANSWER
        assert "greeting" not in out.stdout and "greeting" not in out.stderr
        assert "reasoning_effort" not in server.requests[-1]  # not configured, not given

    def test_a_bad_level_is_one_line_and_exit_2(self, server, workspace, tmp_path):
        out = run_cli(["run", "hi", "--effort", "extreme", *flags(server, tmp_path / "b.db")], workspace)
        assert out.returncode == 2
        assert out.stderr.strip() == (
            "agent-tui: --effort must be one of minimal, low, medium, high or off, got 'extreme'"
        )
        assert not server.requests

    def test_effort_overrides_the_config_and_off_sends_none(self, server, workspace, tmp_path):
        """The flag wins over `[model] reasoning_effort` for its run only; `off` sends nothing."""
        config = paths.user_config_file()
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('[model]\nreasoning_effort = "high"\n')
        db = tmp_path / "o.db"
        server.enqueue(Reply(text="a"), Reply(text="b"), Reply(text="c"))
        for effort, sent in ((["--effort", "low"], "low"), (["--effort", "OFF"], None), ([], "high")):
            out = run_cli(["run", "hi", *effort, *flags(server, db)], workspace)
            assert out.returncode == 0, out.stderr
            assert server.requests[-1].get("reasoning_effort") == sent, effort


def seed_session(db) -> str:
    """A stored session whose tool-using reply thought first (812 tokens, 4.2 s)."""
    import asyncio
    import dataclasses

    from agent_tui.base.messages import ToolCall, assistant, tool_result, user
    from agent_tui.base.reasoning import Reasoning
    from agent_tui.store import open_store

    async def seed() -> str:
        store = await open_store(db)
        try:
            info = await store.sessions.create("/work/proj", "openai/fake-model")
            call = ToolCall("c1", "read_file", '{"path": "a.txt"}')
            thought = Reasoning(text="Read a.txt first, then answer in [one] line.", tokens=812, duration=4.2)
            await store.sessions.append(
                info.id,
                [
                    user("what is in [a.txt]?"),
                    dataclasses.replace(assistant("Reading it.", (call,)), reasoning=thought),
                    tool_result(call, "alpha"),
                    assistant("It says alpha."),
                ],
            )
            return info.id
        finally:
            await store.close()

    return asyncio.run(seed())


def on_a_terminal(args: list[str]) -> str:
    """The CLI's output on a real terminal (a pty), where it prints rich tables."""
    import os
    import sys

    from tests.support.cli import ROOT
    from tests.support.pty_run import on_a_pty

    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200", TERM="xterm", NO_COLOR="1")
    return on_a_pty([sys.executable, "-m", "agent_tui", *args], env)


class TestSessionsShow:
    def test_piped_rows_say_what_was_thought(self, workspace, tmp_path):
        """Piped, the reply's row stays one line and starts with its thinking's size and text."""
        db = tmp_path / "s.db"
        session_id = seed_session(db)
        out = run_cli(["sessions", "show", session_id, "--db", str(db)], workspace)
        assert out.returncode == 0, out.stderr
        rows = [line.split("\t") for line in out.stdout.strip().splitlines()]
        assert len(rows) == 4
        seq, role, kind, text = rows[1]
        assert (seq, role, kind) == ("2", "assistant", "chat")
        assert text.startswith("(thought 812 tokens, 4.2 s: Read a.txt first, then answer in [one] line.) ")
        assert text.endswith('Reading it. → read_file({"path": "a.txt"})')
        assert "thought" not in rows[3][3]

    def test_terminal_shows_a_thinking_line_above_the_text(self, workspace, tmp_path):
        """On a terminal the reply's cell has a `thinking · 812 tokens · 4.2 s` line, then the
        text; brackets in messages are printed, not taken for markup."""
        db = tmp_path / "t.db"
        session_id = seed_session(db)
        text = on_a_terminal(["sessions", "show", session_id, "--db", str(db)])
        lines = text.splitlines()
        (at,) = [i for i, line in enumerate(lines) if "thinking · 812 tokens · 4.2 s" in line]
        assert "Read a.txt first, then answer in [one] line." in lines[at]
        assert "Reading it. → read_file" in lines[at + 1]
        assert "what is in [a.txt]?" in text
