"""Forks: `sessions fork ID [--at N]` copies a session's conversation into a new session that
`run --session` continues; the source is untouched, lists name the source, refs still read."""

from __future__ import annotations

import json

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli


def texts(request: dict) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in request["messages"][1:]
    ]


class TestFork:
    def test_fork_at_n_then_run_holds_messages_before_n_only(self, server, workspace, tmp_path):
        """`sessions fork ID --at 5` then `run --session NEW`: the request holds messages 1…4
        (with the tool call and its output, read back by ref) and none after."""
        db = tmp_path / "f.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 3000"})]), Reply(text="counted"))
        first = run_cli(["run", "count please", "--yes", "--json", *flags(server, db)], workspace)
        assert first.returncode == 0, first.stderr
        result = json.loads(first.stdout.splitlines()[-1])
        source, ref = result["session_id"], result["refs"][0]["id"]
        server.enqueue(Reply(text="the answer is forty-two"))
        second = run_cli(["run", "a later question", "--session", source, *flags(server, db)], workspace)
        assert second.returncode == 0, second.stderr
        # Messages: 1 user, 2 assistant (call), 3 tool, 4 assistant "counted", 5 user, 6 assistant.
        forked = run_cli(["sessions", "fork", source, "--at", "5", "--db", str(db)], workspace)
        assert forked.returncode == 0, forked.stderr
        new = forked.stdout.strip()
        assert new.startswith("s_") and new != source

        server.enqueue(
            Reply(tool_calls=[("read_result", {"ref_id": ref, "offset": 2999, "limit": 1})]), Reply(text="ok")
        )
        third = run_cli(["run", "from the fork", "--session", new, *flags(server, db)], workspace)
        assert third.returncode == 0, third.stderr
        sent = texts(server.requests[-2])
        assert sent[0] == "count please" and "counted" in sent and sent[-1].startswith("from the fork")
        assert not any("a later question" in t or "forty-two" in t for t in sent)
        assert "2999\t2999" in texts(server.requests[-1])[-1]  # the source's output, read by ref

        listed = run_cli(["sessions", "list", "--db", str(db)], workspace)
        assert f"(fork of {source})" in listed.stdout
        shown = run_cli(["sessions", "show", source, "--db", str(db)], workspace)
        assert "a later question" in shown.stdout  # the source is untouched

    def test_fork_at_out_of_range_is_one_line(self, server, workspace, tmp_path):
        """A message number past the end is a one-line error naming the range."""
        db = tmp_path / "f.db"
        server.enqueue(Reply(text="hi"))
        out = run_cli(["run", "hello", "--json", *flags(server, db)], workspace)
        source = json.loads(out.stdout.splitlines()[-1])["session_id"]
        bad = run_cli(["sessions", "fork", source, "--at", "9", "--db", str(db)], workspace)
        assert bad.returncode != 0 and "from 1 to 3" in bad.stderr and "Traceback" not in bad.stderr
