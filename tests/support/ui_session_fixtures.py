"""Sessions built through the real agent loop, in the real app, for the /context and /blobs tests.

The model (the local test server) answers each user message with one bash call that prints many
lines, then a short reply; the command is allowed by a `[tools] allow` rule so no modal asks. A
summary request gets a summary, so `/compact` runs the whole chain.
"""

from __future__ import annotations

import json
import re

import pytest

from agent_tui.base.messages import assistant, user
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle

REF = re.compile(r"r_[0-9a-f]{10}")
GEN = """#!/bin/sh
# gen.sh TURN LINES: numbered rows of one turn; turn 2 also prints a timeout error.
i=1
while [ "$i" -le "$2" ]; do
  echo "turn$1 row $i of the listing"
  i=$((i + 1))
done
if [ "$1" = "2" ]; then echo "ERROR: deadline exceeded in test_checkout (timeout 30 s)"; fi
"""


def is_summary_request(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


def responder(body: dict) -> Reply:
    """Runs `sh gen.sh N 1500` for each `list rows, round N`, then answers; summarises when
    asked."""
    if is_summary_request(body):
        refs = sorted(set(REF.findall(json.dumps(body))))
        return Reply(
            text=f"<retain>refs: {' '.join(refs[:5])}</retain>"
            "<summary>The user listed rows, one listing per turn.</summary>"
        )
    last = body["messages"][-1]
    round_ = re.search(r"list rows, round (\d+)", str(last.get("content")))
    if last["role"] == "user" and round_:
        return Reply(tool_calls=[("bash", {"command": f"sh gen.sh {round_.group(1)} 1500"})])
    return Reply(text="Listed.")


@pytest.fixture
def agent_server():
    with FakeOpenAI(window=16_384, responder=responder) as srv:
        yield srv


@pytest.fixture
def loop_workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "gen.sh").write_text(GEN)
    return ws


@pytest.fixture
def loop_config(agent_server, tmp_path):
    return make_config(agent_server, tmp_path / "ui2.db", window=16_384, tools={"allow": ["bash:sh gen.sh"]})


def loop_app(config, workspace, **kwargs):
    return make_app(config, workspace, **kwargs)


async def send(pilot, text: str) -> None:
    """Type `text` into the active tab's input and press Enter, then wait until it is done."""
    prompt = pilot.app.view.prompt
    prompt.focus()
    prompt.set_text(text)
    await pilot.press("enter")
    await settle(pilot)


async def run_turns(pilot, count: int, start: int = 1) -> None:
    for turn in range(start, start + count):
        await send(pilot, f"list rows, round {turn}")


async def stored_chat(config, workspace, turns: int, title: str = "old work") -> str:
    """A session written straight into the database (as an earlier run would have left it)."""
    services = await build_services(config, workspace=workspace)
    try:
        info = await services.store.sessions.create(str(workspace), config.model.name, title=title)
        messages = []
        for i in range(turns):
            messages += [user(f"question {i}"), assistant(f"answer **{i}**")]
        await services.store.sessions.append(info.id, messages)
        return info.id
    finally:
        await services.close()


async def markdown_chat_app(config, workspace, turns: int = 150):
    """The app opened on a stored session of `turns` questions and Markdown answers with code."""
    services = await build_services(config, workspace=workspace)
    try:
        info = await services.store.sessions.create(str(workspace), config.model.name, title="long")
        history = []
        for i in range(turns):
            history += [
                user(f"question {i}: why does test {i} fail?"),
                assistant(f"Test **{i}** fails because:\n\n```python\nassert f({i}) == {i * 2}\n```\n"),
            ]
        await services.store.sessions.append(info.id, history)
    finally:
        await services.close()
    return make_app(config, workspace, session_id=info.id)
