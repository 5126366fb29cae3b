"""Claude Code-style hook scripts and settings files, and reading the `--json` events a hooked run printed."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

from agent_tui.runtime import paths
from testkit.fake_openai import FakeOpenAI

NO_RM = """#!/bin/bash
# Refuse rm, the Claude Code way: exit 2 with the reason on stderr.
command=$(jq -r '.tool_input.command // empty')
if echo "$command" | grep -qE '(^|[;&| ])rm( |$)'; then
  echo "rm is not allowed in this repo" >&2
  exit 2
fi
exit 0
"""


def user_config(server: FakeOpenAI, db: Path) -> None:
    path = paths.user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[model]\nname = "openai/fake-model"\napi_base = "{server.base_url}"\ncontext_window = 32000\n'
        f'[store]\ndb = "{db}"\n[tools]\ndeny_ends_turn = false\n'
    )


def script(folder: Path, name: str, text: str) -> str:
    path = folder / ".claude" / "hooks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return f'"$CLAUDE_PROJECT_DIR"/.claude/hooks/{name}'


def claude_settings(folder: Path, hooks: dict) -> None:
    (folder / ".claude").mkdir(exist_ok=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}, indent=2))


def group(matcher: str | None, command: str, **extra) -> dict:
    entry = {"hooks": [{"type": "command", "command": command, **extra}]}
    return entry if matcher is None else {"matcher": matcher, **entry}


def events_of(out: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in out.stdout.splitlines()]
