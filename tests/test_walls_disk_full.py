"""A full disk is never silent: under a file-size limit standing in for one, `run` says the answer
could not be saved and exits non-zero, and a command's output the store cannot take comes back
inline instead of as `OperationalError: disk I/O error`."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.cli import flags, run_cli

HEADROOM = 256 << 10


def run_limited(args: list[str], cwd: Path, limit: int) -> subprocess.CompletedProcess:
    """`agent-tui` with no file allowed past `limit` bytes (SIGXFSZ ignored: writes fail EFBIG)."""

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=120,
        preexec_fn=cap,
    )


def limit_for(db: Path) -> int:
    """Room for the run to start (a lease, the prompt) but not for a large write."""
    return max(p.stat().st_size for p in db.parent.iterdir() if p.is_file()) + HEADROOM


WINDOW = 4_000_000
"""Big enough that an answer larger than the database fits without compaction."""


def test_unsaved_answer_fails_the_run(workspace, tmp_path):
    """wall: storage — an answer the store cannot save: the run says so and exits non-zero."""
    with FakeOpenAI(window=WINDOW) as server:
        _unsaved_answer(server, workspace, tmp_path)


def _unsaved_answer(server, workspace, tmp_path):
    db = tmp_path / "d.db"
    server.enqueue(Reply(text="first"))
    assert run_cli(["run", "hello", *flags(server, db, WINDOW)], workspace).returncode == 0
    big = "answer " + "word " * (limit_for(db) // 4)
    server.enqueue(Reply(text=big))
    out = run_limited(["run", "again", "--continue", *flags(server, db, WINDOW)], workspace, limit_for(db))
    assert out.returncode != 0, out.stderr[-2000:]
    assert "could not be saved" in out.stderr, out.stderr[-2000:]
    assert "Traceback" not in out.stderr

    server.enqueue(Reply(text=big))
    as_json = run_limited(
        ["run", "again", "--continue", "--json", *flags(server, db, WINDOW)], workspace, limit_for(db)
    )
    result = json.loads(as_json.stdout.splitlines()[-1])
    assert as_json.returncode != 0 and result["ok"] is False
    assert any(json.loads(line).get("kind") == "storage" for line in as_json.stdout.splitlines()[:-1])


def test_bash_output_the_store_cannot_take_comes_back_inline(server, workspace, tmp_path):
    """wall: storage — bash's output reaches the model inline when the offload store fails."""
    db = tmp_path / "b.db"
    server.enqueue(Reply(text="first"))
    assert run_cli(["run", "hello", *flags(server, db)], workspace).returncode == 0
    server.enqueue(
        Reply(tool_calls=[("bash", {"command": "seq 1 200000; echo LAST-LINE"})]), Reply(text="done")
    )
    out = run_limited(["run", "count", "--yes", "--continue", *flags(server, db)], workspace, limit_for(db))
    tool_message = server.requests[-1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "OperationalError" not in tool_message["content"]
    assert "LAST-LINE" in tool_message["content"] and "1\n2\n3\n" in tool_message["content"]
    assert "could not be saved" in out.stderr and out.returncode != 0
