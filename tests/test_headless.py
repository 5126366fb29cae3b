"""`agent-tui run` as scripts use it: a real subprocess, the strict local server, a real database."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading

from agent_tui.store import open_store
from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli


def ctrl_c_as_in_a_terminal() -> None:
    """A command started in the foreground of a terminal takes Ctrl-C; one started in the
    background of a script (`cmd &`, as CI runners may start the suite) inherits SIGINT ignored,
    and Python then installs no handler for it: the child gets the terminal's disposition."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


class TestHeadless:
    def test_run_then_continue_reads_back_an_offloaded_output(self, server, workspace, tmp_path):
        """Two runs: the second resumes the first, reads its stored output by ref, and the
        transcript in the database is exactly what the server was sent plus the final reply."""
        db = tmp_path / "h.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 4000"})]), Reply(text="counted to 4000"))
        first = run_cli(["run", "count", "--yes", "--json", *flags(server, db)], workspace)
        assert first.returncode == 0, first.stderr
        events = [json.loads(line) for line in first.stdout.splitlines()]
        result = events[-1]
        assert result["type"] == "result" and result["ok"] and result["text"] == "counted to 4000"
        ref = result["refs"][0]
        assert ref["line_count"] == 4000
        assert {"turn_started", "budget", "text_delta", "tool_call_finished", "turn_finished"} <= {
            e["type"] for e in events
        }

        server.enqueue(
            Reply(tool_calls=[("read_result", {"ref_id": ref["id"], "offset": 2000, "limit": 2})]),
            Reply(text="line 2000 says 2000"),
        )
        second = run_cli(["run", "what is on line 2000?", "--continue", *flags(server, db)], workspace)
        assert second.returncode == 0, second.stderr
        assert second.stdout.strip() == "line 2000 says 2000"
        read_back = server.requests[-1]["messages"][-1]
        assert read_back["role"] == "tool" and "2000" in read_back["content"]

        async def transcript():
            store = await open_store(db)
            try:
                session_id = result["session_id"]
                return [m.to_openai() for m in await store.sessions.transcript(session_id)]
            finally:
                await store.close()

        def wire(messages):  # litellm leaves out keys whose value is None
            return [{k: v for k, v in m.items() if v is not None} for m in messages]

        stored = wire(asyncio.run(transcript()))
        sent = wire(server.requests[-1]["messages"][1:])  # without the system prompt
        assert stored[: len(sent)] == sent
        assert stored[-1] == {"role": "assistant", "content": "line 2000 says 2000"}

    def test_prompt_from_stdin_and_plain_output(self, server, workspace, tmp_path):
        server.enqueue(Reply(text="from stdin"))
        out = run_cli(["run", "-", *flags(server, tmp_path / "s.db")], workspace, stdin="hello from a pipe")
        assert out.returncode == 0 and out.stdout == "from stdin\n"
        assert server.requests[0]["messages"][-1]["content"] == "hello from a pipe"

    def test_provider_error_exits_non_zero_with_one_line(self, server, workspace, tmp_path):
        server.enqueue(Reply(status=401))
        out = run_cli(["run", "hi", *flags(server, tmp_path / "e.db")], workspace)
        assert out.returncode == 1
        assert "Traceback" not in out.stderr
        assert "error:" in out.stderr and len(out.stderr.strip().splitlines()) == 1

    def test_unknown_model_is_a_clear_error(self, workspace, tmp_path):
        out = run_cli(
            ["run", "hi", "--model", "openai/nobody-knows-me", "--db", str(tmp_path / "u.db")], workspace
        )
        assert out.returncode == 2
        assert "context_window" in out.stderr and "Traceback" not in out.stderr

    def test_denied_tool_says_how_to_allow(self, server, workspace, tmp_path):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "rm -rf build"})]), Reply(text="could not"))
        out = run_cli(["run", "clean", *flags(server, tmp_path / "d.db")], workspace)
        assert out.returncode == 0
        assert "--yes" in out.stderr or "allow" in out.stderr

    def test_unknown_session_is_a_clear_error(self, server, workspace, tmp_path):
        out = run_cli(["run", "hi", "--session", "s_nope", *flags(server, tmp_path / "n.db")], workspace)
        assert out.returncode == 2 and "no session s_nope" in out.stderr
        assert "Traceback" not in out.stderr

    def test_sessions_compact_reports_on_stderr_and_resume_uses_it(self, server, workspace, tmp_path):
        """`sessions compact ID` compacts a saved session; plain mode says so in one line."""
        db = tmp_path / "k.db"
        for k in range(3):
            server.enqueue(
                Reply(tool_calls=[("bash", {"command": f"seq 1 {2000 + k}"})]), Reply(text=f"done {k}")
            )
            args = ["run", f"count {k}", "--yes", *flags(server, db)]
            if k:
                args.append("--continue")
            assert run_cli(args, workspace).returncode == 0
        listing = run_cli(["sessions", "list", "--db", str(db)], workspace)
        session_id = listing.stdout.split()[0]
        server.enqueue(Reply(text="<retain>r_x</retain><summary>counted three times</summary>"))
        out = run_cli(
            ["sessions", "compact", session_id, "-i", "keep the counts", *flags(server, db)], workspace
        )
        assert out.returncode == 0, out.stderr
        assert "Compacted" in out.stderr and len(out.stderr.strip().splitlines()) == 1
        assert "keep the counts" in json.dumps(server.requests[-1])
        server.enqueue(Reply(text="resumed"))
        again = run_cli(["run", "and now?", "--continue", *flags(server, db)], workspace)
        assert again.returncode == 0
        assert "counted three times" in json.dumps(server.requests[-1]["messages"])


class TestInterrupt:
    def test_ctrl_c_mid_stream_saves_the_session(self, server, workspace, tmp_path):
        """SIGINT while the reply streams: exit 130, one line saying how to resume, and the
        partial reply kept and marked in the transcript."""
        import signal
        import time

        db = tmp_path / "i.db"
        rest = threading.Event()  # the reply stalls mid-stream: SIGINT lands mid-reply
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(400)), hold=rest, words_per_chunk=1))
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_tui", "run", "talk", "--json", *flags(server, db)],
            cwd=workspace,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=ctrl_c_as_in_a_terminal,
        )
        deadline = time.monotonic() + 60
        for line in proc.stdout:
            if '"text_delta"' in line or time.monotonic() > deadline:
                break
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            rest.set()
        assert proc.returncode == 130
        assert "--session" in err and "Traceback" not in err

        async def transcript():
            store = await open_store(db)
            try:
                sessions = await store.sessions.list()
                return await store.sessions.transcript(sessions[0].id)
            finally:
                await store.close()

        stored = asyncio.run(transcript())
        assert stored[0].content == "talk"
        assert stored[1].role == "assistant" and "interrupted" in stored[1].content
