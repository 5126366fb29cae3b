"""An edit or write that cannot apply returns the tool's error at once, without asking for
approval (as Claude Code does); one that can apply is still asked about."""

from __future__ import annotations

import json

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli


def finished(out) -> list[dict]:
    """The run's tool_call_finished events."""
    events = [json.loads(line) for line in out.stdout.splitlines()]
    return [e for e in events if e["type"] == "tool_call_finished"]


def test_edit_whose_text_is_missing_fails_without_asking(server, workspace, tmp_path):
    """edit_file with an old_string not in the file: the model gets "not found", not a denial."""
    (workspace / "m.py").write_text("x = 1\n")
    server.enqueue(
        Reply(tool_calls=[("edit_file", {"path": "m.py", "old_string": "zzz", "new_string": "y"})]),
        Reply(text="done"),
    )
    out = run_cli(["run", "edit it", "--json", *flags(server, tmp_path / "e.db")], workspace)
    assert out.returncode == 0, out.stderr
    [event] = finished(out)
    result = event["view"]
    assert "old_string was not found in m.py" in result and event["outcome"] == "error"


def test_edit_whose_text_is_not_unique_fails_without_asking(server, workspace, tmp_path):
    """edit_file with an old_string found twice: the model gets "matches 2 places", not a denial."""
    (workspace / "m.py").write_text("x = 1\nx = 1\n")
    server.enqueue(
        Reply(tool_calls=[("edit_file", {"path": "m.py", "old_string": "x = 1", "new_string": "y"})]),
        Reply(text="done"),
    )
    out = run_cli(["run", "edit it", "--json", *flags(server, tmp_path / "e.db")], workspace)
    assert out.returncode == 0, out.stderr
    [event] = finished(out)
    result = event["view"]
    assert "matches 2 places" in result and event["outcome"] == "error"
    assert (workspace / "m.py").read_text() == "x = 1\nx = 1\n"


def test_write_onto_a_directory_fails_without_asking(server, workspace, tmp_path):
    """write_file whose path is a directory: the tool's error, not a denial."""
    (workspace / "d").mkdir()
    server.enqueue(Reply(tool_calls=[("write_file", {"path": "d", "content": "x"})]), Reply(text="done"))
    out = run_cli(["run", "write it", "--json", *flags(server, tmp_path / "w.db")], workspace)
    assert out.returncode == 0, out.stderr
    [event] = finished(out)
    result = event["view"]
    assert "is a directory" in result and event["outcome"] == "error"


def test_edit_that_applies_is_still_asked_about(server, workspace, tmp_path):
    """An edit that would apply still needs approval: headless without --yes denies it."""
    (workspace / "m.py").write_text("x = 1\n")
    server.enqueue(
        Reply(tool_calls=[("edit_file", {"path": "m.py", "old_string": "x = 1", "new_string": "y"})]),
        Reply(text="done"),
    )
    out = run_cli(["run", "edit it", "--json", *flags(server, tmp_path / "e.db")], workspace)
    assert out.returncode == 0, out.stderr
    [event] = finished(out)
    assert event["outcome"] == "denied"
    assert (workspace / "m.py").read_text() == "x = 1\n"
