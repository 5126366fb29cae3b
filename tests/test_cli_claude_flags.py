"""The command line a Claude Code user types, through `python -m agent_tui` in a subprocess
against the local test server: `agent-tui "…"` (the TUI gets the first message), `-p`, `-c` /
`--resume`, and `run --output-format text|json|stream-json` in Claude Code's shapes."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent_tui.store import open_store
from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli
from tests.support.signals import Terminal

# Claude Code's headless docs: every stream-json line is one of these message types; the stream
# starts with a system `init` and ends with a `result` carrying usage and cost.
CLAUDE_TYPES = {"system", "assistant", "user", "result"}
RESULT_KEYS = {
    "type",
    "subtype",
    "is_error",
    "duration_ms",
    "duration_api_ms",
    "num_turns",
    "result",
    "session_id",
    "total_cost_usd",
    "usage",
}


def transcript(db, session_id=None) -> list[tuple[str, str | None]]:
    async def read():
        store = await open_store(db)
        try:
            sid = session_id or (await store.sessions.list())[0].id
            return [(m.role, m.content) for m in await store.sessions.transcript(sid)]
        finally:
            await store.close()

    return asyncio.run(read())


class TestPrintMode:
    def test_p_prints_the_answer_like_run(self, server, workspace, tmp_path):
        """`agent-tui -p "…"` is print mode: the answer on stdout, exit 0, no TUI."""
        server.enqueue(Reply(text="the answer"))
        out = run_cli(["-p", "what is it?", *flags(server, tmp_path / "p.db")], workspace)
        assert out.returncode == 0, out.stderr
        assert out.stdout == "the answer\n"
        assert server.requests[0]["messages"][-1]["content"] == "what is it?"

    def test_message_after_the_options_and_resume(self, server, workspace, tmp_path):
        """Options before or after the message; `--resume ID` and `-c` continue a session."""
        db = tmp_path / "r.db"
        server.enqueue(Reply(text="one"), Reply(text="two"), Reply(text="three"))
        assert run_cli([*flags(server, db), "-p", "first"], workspace).returncode == 0
        session_id = transcript_id(db)
        second = run_cli(["-p", "second", "--resume", session_id, *flags(server, db)], workspace)
        assert second.returncode == 0, second.stderr
        third = run_cli(["-c", "-p", "third", *flags(server, db)], workspace)
        assert third.stdout == "three\n", third.stderr
        assert [c for r, c in transcript(db, session_id) if r == "user"] == ["first", "second", "third"]

    def test_sub_commands_still_win(self, server, workspace, tmp_path):
        """A word that names a sub-command is that command, not a message."""
        db = tmp_path / "s.db"
        server.enqueue(Reply(text="hello"))
        run_cli(["-p", "hi", *flags(server, db)], workspace)
        out = run_cli(["sessions", "list", "--db", str(db)], workspace)
        assert out.returncode == 0 and "hi" in out.stdout
        assert len(server.requests) == 1

    def test_yes_without_p_is_one_clear_line(self, workspace, tmp_path):
        """`--output-format` belongs to print mode: without -p it is a one-line usage error."""
        out = run_cli(["--output-format", "json", "hello"], workspace)
        assert out.returncode == 2
        assert "go with -p" in out.stderr and "Traceback" not in out.stderr


def transcript_id(db) -> str:
    async def read():
        store = await open_store(db)
        try:
            return (await store.sessions.list())[0].id
        finally:
            await store.close()

    return asyncio.run(read())


class TestOutputFormats:
    def test_text_is_the_plain_answer(self, server, workspace, tmp_path):
        server.enqueue(Reply(text="plain words"))
        out = run_cli(["run", "hi", "--output-format", "text", *flags(server, tmp_path / "t.db")], workspace)
        assert out.returncode == 0 and out.stdout == "plain words\n"

    def test_json_is_one_result_object(self, server, workspace, tmp_path):
        """`--output-format json`: one object, Claude Code's result with usage and cost."""
        server.enqueue(Reply(text="forty-two"))
        out = run_cli(
            ["-p", "answer?", "--output-format", "json", *flags(server, tmp_path / "j.db")], workspace
        )
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert len(lines) == 1
        result = json.loads(lines[0])
        assert RESULT_KEYS <= set(result)
        assert result["type"] == "result" and result["subtype"] == "success" and not result["is_error"]
        assert result["result"] == "forty-two" and result["num_turns"] == 1
        assert result["usage"]["input_tokens"] > 0 and result["usage"]["output_tokens"] > 0
        assert result["total_cost_usd"] is None  # a local server has no prices: unknown, not $0

    def test_stream_json_follows_claude_codes_event_sequence(self, server, workspace, tmp_path):
        """system init → assistant tool_use → user tool_result → assistant text → result."""
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo hi"})]), Reply(text="it said hi"))
        out = run_cli(
            ["run", "say hi", "--yes", "--output-format", "stream-json", *flags(server, tmp_path / "s.db")],
            workspace,
        )
        assert out.returncode == 0, out.stderr
        events = [json.loads(line) for line in out.stdout.splitlines()]
        assert {e["type"] for e in events} <= CLAUDE_TYPES
        init, *middle, result = events
        assert init["type"] == "system" and init["subtype"] == "init"
        assert "bash" in init["tools"] and init["model"] == "openai/fake-model" and init["cwd"]
        assert [e["type"] for e in middle] == ["assistant", "user", "assistant"]
        tool_use = middle[0]["message"]["content"][0]
        assert middle[0]["message"]["role"] == "assistant"
        assert tool_use["type"] == "tool_use" and tool_use["name"] == "bash"
        assert tool_use["input"] == {"command": "echo hi"}
        tool_result = middle[1]["message"]["content"][0]
        assert middle[1]["message"]["role"] == "user"
        assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == tool_use["id"]
        assert "hi" in tool_result["content"] and tool_result["is_error"] is False
        assert middle[2]["message"]["content"] == [{"type": "text", "text": "it said hi"}]
        assert RESULT_KEYS <= set(result) and result["subtype"] == "success"
        assert result["result"] == "it said hi" and result["num_turns"] == 2
        assert {"input_tokens", "output_tokens", "cache_read_input_tokens"} <= set(result["usage"])
        assert len({e["session_id"] for e in events}) == 1

    def test_a_bad_format_is_one_line(self, workspace, tmp_path):
        out = run_cli(["run", "hi", "--output-format", "yaml"], workspace)
        assert out.returncode == 2 and "text, json, stream-json" in out.stderr
        assert "Traceback" not in out.stderr


class TestFirstMessageOpensTheTui:
    @pytest.mark.parametrize("extra", [[], ["-c"]])
    def test_the_tui_sends_the_message_given_on_the_command_line(
        self, server, workspace, tmp_path, isolated_home, extra
    ):
        """`agent-tui "fix the bug"` opens the TUI and sends it as the first message (with `-c`,
        in the newest session)."""
        db = tmp_path / "tui.db"
        if extra:
            server.enqueue(Reply(text="earlier"))
            assert run_cli(["-p", "earlier question", *flags(server, db)], workspace).returncode == 0
        server.enqueue(Reply(text="fixed it, zq-done"))
        term = Terminal([*extra, "fix the bug", *flags(server, db)], workspace, isolated_home)
        try:
            term.wait_for("zq-done")
            term.type("/quit\r")
            assert term.proc.wait(timeout=30) == 0
        finally:
            term.close()
        users = [c for r, c in transcript(db) if r == "user"]
        assert users == (["earlier question", "fix the bug"] if extra else ["fix the bug"])


class TestTrustFlagInTheTui:
    def test_trust_for_one_run_skips_the_question(self, server, workspace, tmp_path, isolated_home):
        """The untrusted-folder notice offers `--trust` "for one run": the TUI takes it too, and
        the project's rule applies without the question (nothing is recorded as trusted)."""
        from agent_tui.policy import trust

        (workspace / ".agent-tui.toml").write_text('[tools]\nallow = ["bash:echo"]\n')
        db = tmp_path / "trust.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo zq-ran"})]), Reply(text="ran it, zq-done")
        )
        term = Terminal(["--trust", "run echo", *flags(server, db)], workspace, isolated_home)
        try:
            term.wait_for("zq-done")
            assert "Do you trust" not in term.text()
            term.type("/quit\r")
            assert term.proc.wait(timeout=30) == 0
        finally:
            term.close()
        assert any("zq-ran" in str(c) for r, c in transcript(db) if r == "tool")
        assert not trust.listing()
