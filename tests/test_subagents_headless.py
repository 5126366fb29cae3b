"""Sub-agents through the real headless `run`: a subprocess, a real database, and the local
OpenAI-compatible and Anthropic servers answering the parent and its children from one script."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from agent_tui.store import open_store
from testkit.fake_anthropic import FakeAnthropic
from testkit.fake_openai import FakeOpenAI, Reply
from testkit.tokenizer import count_claude
from tests.support.cli import run_cli
from tests.support.subagent_model import (
    REF,
    URI,
    Gate,
    Model,
    after_tool,
    first_user_text,
    newest_user_text,
    tool_results,
)

NEEDLE = "NEEDLE-QX7319-ZULU"
ANTHROPIC_KEY = "sk-ant-test-dummy"


class Backend:
    """One of the two local servers, with the flags `run` needs for it."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.server: FakeOpenAI | FakeAnthropic = (
            FakeOpenAI(window=64_000) if kind == "openai" else FakeAnthropic(api_key=ANTHROPIC_KEY)
        )

    def flags(self, db: Path) -> list[str]:
        if self.kind == "openai":
            assert isinstance(self.server, FakeOpenAI)
            model, base, window = "openai/fake-model", self.server.base_url, "64000"
        else:
            model, base, window = "anthropic/claude-sonnet-4-5", self.server.base_url, "200000"
        return ["--model", model, "--api-base", base, "--context-window", window, "--db", str(db)]

    def tokens(self, body: dict) -> int:
        if isinstance(self.server, FakeOpenAI):
            return self.server.prompt_tokens_of(body)
        return count_claude(json.dumps({"system": body.get("system"), "messages": body["messages"]}))


@pytest.fixture(params=["openai", "anthropic"])
def backend(request, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    b = Backend(request.param)
    with b.server:
        yield b


def run_json(args: list[str], cwd: Path) -> list[dict]:
    done = run_cli(["run", *args, "--json", "--yes", "--sandbox", "off"], cwd)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def big_logs(workspace: Path) -> None:
    """Four 2 MB logs; the needle is in the middle of big2.log only (in no head/tail view)."""
    row = "2026-11-25T21:00:00 INFO worker heartbeat ok " + "x" * 40 + "\n"
    rows = (2 * 1024 * 1024) // len(row)
    for i in range(4):
        lines = [row] * rows
        if i == 2:
            lines[rows // 2] = f"2026-11-25T21:30:00 ERROR the needle is {NEEDLE}\n"
        (workspace / f"big{i}.log").write_text("".join(lines))


def test_four_children_read_2mb_each_and_the_needle_comes_back_after_compaction(backend, workspace, tmp_path):
    """Four task calls run concurrently (all four first requests are in flight at once), each
    child cats a 2 MB log; the parent's next request grows by ≤ 2 500 tokens for all four; after
    compacting the parent, it finds a needle that was only in one child's stored output by
    following that child's transcript ref to the output."""
    big_logs(workspace)
    gate = Gate(4)

    def child(body: dict) -> Reply:
        brief = first_user_text(body)
        name = re.search(r"big\d\.log", brief)
        assert name, brief
        if not after_tool(body):
            gate.arrive()
            return Reply(tool_calls=[("bash", {"command": f"cat {name.group(0)}"})])
        return Reply(text=f"{name.group(0)} holds about 2 MB of heartbeat lines.")

    def parent(body: dict) -> Reply:
        asked = newest_user_text(body)
        if "survey" in asked:
            if after_tool(body):
                return Reply(text="Four logs read.")
            return Reply(
                tool_calls=[
                    ("task", {"description": f"read big{i}", "prompt": f"Read big{i}.log with cat."})
                    for i in range(4)
                ]
            )
        if not after_tool(body):  # the question: follow the children's transcript refs
            uris = sorted({m.group(0) for m in URI.finditer(json.dumps(body))})
            return (
                Reply(tool_calls=[("read_result", {"ref_id": u}) for u in uris])
                if uris
                else Reply(text="No refs.")
            )
        results = tool_results(body)
        if found := re.search(r"NEEDLE-[A-Z0-9]+-[A-Z]+", " ".join(results)):
            return Reply(text=f"The needle is {found.group(0)}.")
        for result in results:
            if "big2.log" in result and (ref := REF.search(result)) and (uri := URI.search(result)):
                project = uri.group(0).split("/" + uri.group(1))[0]
                target = f"{project}/{uri.group(1)}/{ref.group(1)}"
                return Reply(tool_calls=[("grep_result", {"ref_id": target, "pattern": "NEEDLE-[A-Z0-9-]+"})])
        return Reply(text="I could not find it.")

    def summary(body: dict) -> Reply:
        uris = sorted({m.group(0) for m in URI.finditer(json.dumps(body))})
        return Reply(
            text=f"<retain>{' '.join(uris)}</retain><summary>Four sub-agents read the logs.</summary>"
        )

    model = Model(parent, child, summary)
    backend.server.responder = model
    db = tmp_path / "sub.db"

    first = run_json(["survey the four logs", *backend.flags(db)], workspace)
    assert gate.met, "the four children's first requests were not in flight together"
    assert first[-1]["ok"] and first[-1]["text"] == "Four logs read."
    finished = [e for e in first if e["type"] == "subagent_finished"]
    assert len(finished) == 4 and {e["state"] for e in finished} == {"completed"}
    parent_id = first[-1]["session_id"]
    assert {e["parent_session_id"] for e in finished} == {parent_id}
    assert sorted(first[-1]["children"]["sessions"]) == sorted(e["session_id"] for e in finished)
    before, after = model.parent_requests[0], model.parent_requests[1]
    grown = backend.tokens(after) - backend.tokens(before)
    assert grown <= 2500, grown
    assert NEEDLE not in json.dumps(after)

    second = run_json(["where is the needle?", "--continue", "--compact", *backend.flags(db)], workspace)
    assert any(e["type"] == "compaction_finished" for e in second)
    assert second[-1]["text"] == f"The needle is {NEEDLE}."
    asked = [b for b in model.parent_requests if "needle" in newest_user_text(b)]
    assert asked and NEEDLE not in json.dumps(asked[0]["messages"])  # only the refs led to it

    async def tree() -> list:
        store = await open_store(db)
        try:
            return await store.sessions.children(parent_id)
        finally:
            await store.close()

    kids = asyncio.run(tree())
    assert len(kids) == 4 and all(k.parent_id == parent_id for k in kids)
