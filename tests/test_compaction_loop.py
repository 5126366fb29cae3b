"""Compaction inside the real loop: thresholds, the hard block, the tool, resume from snapshots,
all against the strict server (which rejects overflows and broken tool pairing)."""

from __future__ import annotations

import json
import re

import pytest

from agent_tui.agent import events as ev
from agent_tui.factory import build_services
from agent_tui.testing.fake_openai import FakeOpenAI, Reply
from tests.agent_fixtures import collect, make_config, of_type, workspace  # noqa: F401

REF = re.compile(r"r_[0-9a-f]{10}")


def is_summary_request(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


def agent_responder(body: dict) -> Reply:
    """A model that runs one big command per user message, then answers; and summarises when
    asked (with the tags, listing whatever refs it saw)."""
    if is_summary_request(body):
        refs = sorted(set(REF.findall(json.dumps(body))))
        return Reply(text=f"<retain>refs: {' '.join(refs[:5])}</retain>"
                          "<summary>The user asked for many listings; each was run.</summary>")
    last = body["messages"][-1]
    if last["role"] == "user":
        turn = sum(1 for m in body["messages"] if m["role"] == "user")
        cmd = f"seq 1 1500 | sed 's/^/turn{turn:03d} row /'"
        return Reply(tool_calls=[("bash", {"command": cmd})])
    return Reply(text="Listed.")


def pairing_ok(messages: list[dict]) -> bool:
    open_calls: list[str] = []
    for m in messages:
        if m["role"] == "tool":
            if not open_calls or m["tool_call_id"] != open_calls.pop(0):
                return False
        elif open_calls:
            return False
        if m["role"] == "assistant":
            open_calls = [c["id"] for c in m.get("tool_calls") or []]
    return not open_calls


@pytest.fixture
def small_server():
    with FakeOpenAI(window=8192, responder=agent_responder) as srv:
        yield srv


class TestLongSession:
    async def test_sixty_turns_through_an_8k_window(self, small_server, workspace, tmp_path):
        """Tool outputs far past the window: no overflow, no broken pairing, and the first
        turn's output is still readable by the ref the retain block kept."""
        cfg = make_config(small_server, tmp_path / "long.db", window=8192)
        services = await build_services(cfg, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            compactions, first_ref, output_bytes = 0, None, 0
            for turn in range(62):
                events = await collect(session.run_turn(f"list rows, round {turn}"))
                assert not of_type(events, ev.ErrorEvent), of_type(events, ev.ErrorEvent)
                assert events[-1].stop_reason == "done"
                compactions += len(of_type(events, ev.CompactionFinished))
                output_bytes += sum(f.ref.byte_size for f in of_type(events, ev.ToolCallFinished))
                if first_ref is None:
                    first_ref = of_type(events, ev.ToolCallFinished)[0].ref
            assert output_bytes > 40 * 8192 * 4, "outputs total far more than the window"
            assert compactions >= 5
            for body in small_server.requests:
                assert small_server.prompt_tokens_of(body) + body.get("max_tokens", 0) <= 8192
                assert pairing_ok(body["messages"][1:])
            history_text = json.dumps([m.to_openai() for m in session.history])
            assert first_ref.id in history_text, "the retain block keeps the first turn's ref"
            small_server.enqueue(
                Reply(tool_calls=[("read_result", {"ref_id": first_ref.id, "offset": 700,
                                                   "limit": 2})]),
                Reply(text="found it"))
            events = await collect(session.run_turn("what was row 700 of the first listing?"))
            read = small_server.requests[-1]["messages"][-1]
            assert read["role"] == "tool" and "turn001 row 700" in read["content"]
        finally:
            await services.close()
