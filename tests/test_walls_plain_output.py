"""Plain output never sends a model's or a tool's control characters to the terminal: `run`'s
answer and notices, `sessions show`, the blob commands; `--json` escapes them as JSON."""

from __future__ import annotations

import json

from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli

HOSTILE = "\x1b[2K\x1b]52;c;ZXZpbA==\x07\x9b1J\u202e"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def clean(text: str) -> bool:
    return not any(char in text for char in RAW)


def test_run_answer_and_denial_notice_show_escapes(server, workspace, tmp_path):
    """wall: terminal output — `run` prints the answer and the denial notice with ␛/␇ shown."""
    db = tmp_path / "p.db"
    server.enqueue(Reply(text=f"all done {HOSTILE} bye"))
    out = run_cli(["run", "go", *flags(server, db)], workspace)
    assert out.returncode == 0, out.stderr
    assert clean(out.stdout), out.stdout
    assert "all done ␛[2K␛]52;c;ZXZpbA==␇⟨U+009B⟩1J⟨U+202E⟩ bye" in out.stdout
    server.enqueue(Reply(tool_calls=[("bash", {"command": f"touch PWNED; {HOSTILE} ls -la"})]))
    denied = run_cli(["run", "go", *flags(server, db)], workspace)
    assert clean(denied.stderr), denied.stderr
    assert "Permission denied for bash: touch PWNED; ␛[2K" in denied.stderr

    listed = run_cli(["sessions", "list", "--db", str(db)], workspace)
    for session_id in [line.split()[0] for line in listed.stdout.splitlines()]:
        shown = run_cli(["sessions", "show", session_id, "--db", str(db)], workspace)
        assert shown.returncode == 0, shown.stderr
        assert clean(shown.stdout) and "␛[2K" in shown.stdout


def test_json_output_escapes_every_control_character(server, workspace, tmp_path):
    """wall: terminal output — `--json` lines hold no raw control, C1 or bidi character."""
    db = tmp_path / "j.db"
    server.enqueue(Reply(text=f"answer {HOSTILE}"))
    out = run_cli(["run", "go", "--json", *flags(server, db)], workspace)
    assert out.returncode == 0, out.stderr
    assert clean(out.stdout)
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["text"] == f"answer {HOSTILE}", "the JSON value is the exact text"


def test_stored_output_commands_show_escapes(server, workspace, tmp_path):
    """wall: terminal output — `blobs show` and `blobs grep` print a stored output with ␛ shown."""
    db = tmp_path / "b.db"
    server.enqueue(
        Reply(tool_calls=[("bash", {"command": "printf 'out \\033[2K \\007 end\\n'"})]), Reply(text="ok")
    )
    out = run_cli(["run", "go", "--yes", "--json", *flags(server, db)], workspace)
    assert out.returncode == 0, out.stderr
    ref = json.loads(out.stdout.splitlines()[-1])["refs"][0]["id"]
    shown = run_cli(["blobs", "show", ref, "--db", str(db)], workspace)
    assert clean(shown.stdout) and "out ␛[2K ␇ end" in shown.stdout
    grepped = run_cli(["blobs", "grep", ref, "out", "--db", str(db)], workspace)
    assert clean(grepped.stdout) and "␛[2K" in grepped.stdout
    raw = run_cli(["blobs", "show", ref, "--raw", "--db", str(db)], workspace)
    assert "\x1b[2K" in raw.stdout, "--raw into a pipe is the exact bytes"
