"""A SubagentStop hook sends a sub-agent back to work, the way a Stop hook sends the agent: exit
2 (or `decision: "block"`) when the child answers makes its stderr the child's next instruction,
`stop_hook_active` lets a hook bounce once, and a hook that always blocks is bounded by the
child's step limit. Real `run`, real bash + jq hooks, one local server for parent and child."""

from __future__ import annotations

import stat
from pathlib import Path

from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.extend import cli, events_of, write, write_user_config
from tests.support.subagent_model import Model, after_tool, newest_user_text, tool_results

CITE_ONCE = """#!/bin/bash
# A Claude Code SubagentStop hook: send the sub-agent back once, then let it stop.
if [ "$(jq -r '.stop_hook_active')" = "true" ]; then exit 0; fi
echo "cite the file you read" >&2
exit 2
"""

BLOCK_JSON = """#!/bin/bash
jq -n '{decision: "block", reason: "not done yet"}'
"""

LOG_STOP = """#!/bin/bash
jq -r '.hook_event_name' >> "$HOME_LOG"
"""


def hook_script(folder: Path, name: str, text: str) -> str:
    path = write(folder / name, text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def config_with_hooks(server: FakeOpenAI, db: Path, hooks: dict[str, str], extra: str = "") -> None:
    tables = "".join(f'[[hooks.{event}]]\ncommand = "{command}"\n' for event, command in hooks.items())
    write_user_config(server, db, extra + tables)


def parent(body: dict) -> Reply:
    if not after_tool(body):
        return Reply(tool_calls=[("task", {"description": "reader", "prompt": "read notes.txt"})])
    return Reply(text="parent got: " + " | ".join(tool_results(body)))


def test_exit_2_sends_the_child_back_once_with_stderr(workspace, tmp_path):
    """The child answers; the SubagentStop hook exits 2 once: the child's next request carries
    `[Stop hook] cite the file you read`, its second answer is the envelope's; the hooks of the
    user's own session (start, prompt, Stop, end; logging their names) fire for the parent alone."""
    scripts = tmp_path / "hooks"
    log = tmp_path / "events.log"
    child_requests: list[dict] = []

    def child(body: dict) -> Reply:
        child_requests.append(body)
        if "[Stop hook]" in newest_user_text(body):
            return Reply(text="notes.txt says 42 (source: notes.txt line 1)")
        return Reply(text="the answer is 42")

    logger = hook_script(scripts, "log.sh", LOG_STOP)
    with FakeOpenAI(window=32_000, responder=Model(parent, child)) as server:
        config_with_hooks(
            server,
            tmp_path / "s.db",
            {
                "SubagentStop": hook_script(scripts, "cite-once.sh", CITE_ONCE),
            },
            extra="".join(
                f'[[hooks.{event}]]\ncommand = "HOME_LOG={log} {logger}"\n'
                for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
            ),
        )
        out = cli(["run", "delegate", "--json", "--yes", "--sandbox", "off"], workspace)
    assert out.returncode == 0, out.stderr
    assert len(child_requests) == 2
    assert newest_user_text(child_requests[1]) == "[Stop hook] cite the file you read"
    events = events_of(out)
    result = events[-1]
    assert "notes.txt says 42 (source: notes.txt line 1)" in result["text"]
    child_hooks = [
        (e["event"]["event"], e["event"]["outcome"])
        for e in events
        if e["type"] == "subagent" and e["event"]["type"] == "hook"
    ]
    assert child_hooks == [("SubagentStop", "blocked"), ("SubagentStop", "ok")]
    assert log.read_text().split() == ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]


def test_a_hook_that_always_blocks_is_bounded_by_the_childs_step_limit(workspace, tmp_path):
    """`decision: "block"` on every stop: the child keeps working until its steps run out
    (`[agent] max_steps` = 3), its envelope says `stopped: turn limit`, the parent answers."""
    scripts = tmp_path / "hooks"
    child_requests: list[dict] = []

    def child(body: dict) -> Reply:
        child_requests.append(body)
        return Reply(text=f"attempt {len(child_requests)}")

    with FakeOpenAI(window=32_000, responder=Model(parent, child)) as server:
        config_with_hooks(
            server,
            tmp_path / "b.db",
            {"SubagentStop": hook_script(scripts, "block.sh", BLOCK_JSON)},
            extra="[agent]\nmax_steps = 3\n",
        )
        out = cli(["run", "delegate", "--json", "--yes", "--sandbox", "off"], workspace)
    assert out.returncode == 0, out.stderr
    assert len(child_requests) == 3
    assert newest_user_text(child_requests[2]) == "[Stop hook] not done yet"
    ends = [e for e in events_of(out) if e["type"] == "subagent_finished"]
    assert [(e["state"], e["reason"]) for e in ends] == [("stopped", "turn limit")]
    result = events_of(out)[-1]
    assert result["ok"] and result["text"].startswith("parent got:")
