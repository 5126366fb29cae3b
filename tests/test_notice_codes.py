"""A notice carries a code saying what it is about, so whoever tells notices apart (the TUI
folding a compaction warning its own line already gave, a `--json` reader spotting denials) reads
the code, never the words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testkit.fake_openai import FakeOpenAI, Reply


def run_json(server: FakeOpenAI, cwd: Path, db: Path) -> list[dict]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    args = ["run", "go", "--json", "--model", "openai/fake-model", "--api-base", server.base_url]
    args += ["--context-window", "32000", "--db", str(db), "--sandbox", "off"]
    out = subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def test_a_denial_is_a_denied_notice(server, workspace, tmp_path):
    """A headless run without --yes refuses a command: its warning event says `denied`."""
    server.enqueue(Reply(tool_calls=[("bash", {"command": "rm -rf build"})]), Reply(text="ok"))
    events = run_json(server, workspace, tmp_path / "a.db")
    warnings = [e for e in events if e["type"] == "warning"]
    assert [w["code"] for w in warnings] == ["denied"]
    assert warnings[0]["message"].startswith("Permission denied for bash: rm -rf build.")


def test_other_notices_are_info():
    """A notice that is not a denial (a hook stopping the turn would be one) defaults to `info`."""
    from agent_tui.agent import events as ev

    notice = ev.Notice("Compaction could not reach its target: words alone decide nothing")
    assert notice.to_json() == {"type": "warning", "message": notice.message, "code": "info"}
