"""A resumed bash line keeps `exit N · T` as the live line showed it (read from the status line
stored with the result), for a short output and for one stored by ref."""

from __future__ import annotations

import json

import pytest

from agent_tui.frontends.tui.transcript import ToolEntry, entries_from_history
from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli, stored_transcript


@pytest.mark.parametrize("command", ["echo hi; exit 3", "seq 1 4000"])
def test_resumed_bash_line_keeps_exit_and_time(server, workspace, tmp_path, command):
    """The resumed line's detail begins with the live line's `exit N · T`."""
    db = tmp_path / "b.db"
    server.enqueue(Reply(tool_calls=[("bash", {"command": command})]), Reply(text="ran"))
    out = run_cli(["run", "run it", "--yes", "--json", *flags(server, db)], workspace)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    [finished] = [e for e in events if e["type"] == "tool_call_finished"]
    live = finished["summary"]
    assert live.startswith("exit "), live
    exit_and_time = " · ".join(live.split(" · ")[:2])
    [line] = [
        e
        for e in entries_from_history(stored_transcript(db, events[-1]["session_id"]))
        if isinstance(e, ToolEntry)
    ]
    assert line.detail.startswith(exit_and_time), (line.detail, live)
