"""A permission denial headless, as Claude Code handles it: the model is told and answers anyway,
and the result lists the denials. Before, the turn ended at the denial: exit 0, `"subtype":
"success"`, `"result": ""` and nothing printed."""

from __future__ import annotations

import json

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli


def test_the_model_answers_after_a_denial_and_the_result_lists_it(server, workspace, tmp_path):
    server.enqueue(
        Reply(tool_calls=[("bash", {"command": "rm -rf build"})]),
        Reply(text="I was not allowed to delete build/; remove it yourself with rm -rf build."),
    )
    out = run_cli(["-p", "clean up", "--output-format", "json", *flags(server, tmp_path / "d.db")], workspace)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["subtype"] == "success"
    assert result["result"].startswith("I was not allowed")
    assert [d["tool_name"] for d in result["permission_denials"]] == ["bash"]
    assert result["permission_denials"][0]["tool_input"] == {"command": "rm -rf build"}
    told = server.requests[-1]["messages"][-1]
    assert told["role"] == "tool" and "denied" in told["content"].lower()


def test_plain_text_says_what_was_denied(server, workspace, tmp_path):
    server.enqueue(
        Reply(tool_calls=[("bash", {"command": "rm -rf build"})]), Reply(text="could not delete it")
    )
    out = run_cli(["run", "clean up", *flags(server, tmp_path / "t.db")], workspace)
    assert out.returncode == 0
    assert out.stdout == "could not delete it\n"
    assert "Permission denied for bash: rm -rf build." in out.stderr
