"""An edit or write that cannot apply returns the tool's error at once, without asking for
approval (as Claude Code does); one that can apply is still asked about."""

from __future__ import annotations

import json
from typing import Any

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli


def one_call(server, workspace, tmp_path, tool: str, args: dict[str, Any]) -> dict:
    """The tool_call_finished event of a headless run (no --yes: an approval is a denial)
    whose model makes this one call."""
    server.enqueue(Reply(tool_calls=[(tool, args)]), Reply(text="done"))
    out = run_cli(["run", "change it", "--json", *flags(server, tmp_path / "e.db")], workspace)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    [finished] = [e for e in events if e["type"] == "tool_call_finished"]
    return finished


def test_edit_whose_text_is_missing_fails_without_asking(server, workspace, tmp_path):
    """edit_file with an old_string not in the file: the model gets "not found", not a denial."""
    (workspace / "m.py").write_text("x = 1\n")
    event = one_call(
        server, workspace, tmp_path, "edit_file", {"path": "m.py", "old_string": "zzz", "new_string": "y"}
    )
    assert "old_string was not found in m.py" in event["view"] and event["outcome"] == "error"


def test_edit_whose_text_is_not_unique_fails_without_asking(server, workspace, tmp_path):
    """edit_file with an old_string found twice: the model gets "matches 2 places", not a denial."""
    (workspace / "m.py").write_text("x = 1\nx = 1\n")
    event = one_call(
        server, workspace, tmp_path, "edit_file", {"path": "m.py", "old_string": "x = 1", "new_string": "y"}
    )
    assert "matches 2 places" in event["view"] and event["outcome"] == "error"
    assert (workspace / "m.py").read_text() == "x = 1\nx = 1\n"


def test_write_onto_a_directory_fails_without_asking(server, workspace, tmp_path):
    """write_file whose path is a directory: the tool's error, not a denial."""
    (workspace / "d").mkdir()
    event = one_call(server, workspace, tmp_path, "write_file", {"path": "d", "content": "x"})
    assert "is a directory" in event["view"] and event["outcome"] == "error"


def test_edit_that_applies_is_still_asked_about(server, workspace, tmp_path):
    """An edit that would apply still needs approval: headless without --yes denies it."""
    (workspace / "m.py").write_text("x = 1\n")
    event = one_call(
        server, workspace, tmp_path, "edit_file", {"path": "m.py", "old_string": "x = 1", "new_string": "y"}
    )
    assert event["outcome"] == "denied"
    assert (workspace / "m.py").read_text() == "x = 1\n"
