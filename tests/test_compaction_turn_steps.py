"""A turn keeps its own steps through compaction (issue 44 item 7).

Compaction in the middle of a long turn used to summarise that turn's earlier steps: the next
request held the summary, the user's message and the newest step, and a model that counts its
steps started over. The steps of the turn in flight stay; only their outputs' views may shrink
(to placeholders that keep their refs)."""

from __future__ import annotations

import json
import re

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type

STEPS = 30
STEP = re.compile(r"echo step (\d+)")
REF = re.compile(r"r_[0-9a-f]{10}")


def is_summary_request(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


def steps_seen(messages: list[dict]) -> list[int]:
    """The step numbers of the calls this turn's visible history holds, in order."""
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user" and "count" in str(m["content"]))
    seen = []
    for m in messages[last_user:]:
        for call in m.get("tool_calls") or []:
            seen += [int(n) for n in STEP.findall(call["function"]["arguments"])]
    return seen


def counting_model(body: dict) -> Reply:
    """Runs `STEPS` numbered commands, counting the steps it can see in the request; it starts
    over from what it sees, as a model does when its earlier steps vanish."""
    if is_summary_request(body):
        refs = sorted(set(REF.findall(json.dumps(body))))
        return Reply(text=f"<retain>refs: {' '.join(refs)}</retain><summary>Listings were run.</summary>")
    seen = steps_seen(body["messages"])
    if len(seen) >= STEPS:
        return Reply(text=f"done after {len(seen)} steps")
    n = len(seen) + 1
    return Reply(tool_calls=[("bash", {"command": f"echo step {n}; seq 1 120 | sed 's/^/step{n} row /'"})])


class TestTurnKeepsItsSteps:
    async def test_a_counting_model_finishes_through_compactions(self, workspace, tmp_path):
        """Compaction runs during the turn, every request still holds each earlier step of the
        turn in order, and the model finishes after exactly its steps."""
        with FakeOpenAI(window=16000, responder=counting_model) as srv:
            cfg = make_config(srv, tmp_path / "t.db", window=16000, agent={"max_steps": 40})
            services = await build_services(cfg, workspace=workspace)
            try:
                session = await services.new_session(yes=True)
                # An earlier turn, so there is history older than this turn to summarise.
                srv.enqueue(Reply(text="hello"))
                await collect(session.run_turn("hi " + " ".join(f"w{i}" for i in range(2500)), as_is=True))
                events = await collect(session.run_turn("count your steps please"))
                assert not of_type(events, ev.ErrorEvent), of_type(events, ev.ErrorEvent)
                assert of_type(events, ev.CompactionFinished), "the turn must compact on the way"
                assert events[-1].stop_reason == "done"
                chat = [b for b in srv.requests if not is_summary_request(b)][1:]
                for i, body in enumerate(chat):
                    assert steps_seen(body["messages"]) == list(range(1, i + 1)), i
                assert len(chat) == STEPS + 1
                final = chat[-1]["messages"]
                for n in range(1, STEPS + 1):
                    called = [
                        m
                        for m in final
                        if any(
                            f"echo step {n};" in c["function"]["arguments"] for c in m.get("tool_calls") or []
                        )
                    ]
                    assert called, n
            finally:
                await services.close()


class TestModelsOwnCompaction:
    async def test_compact_context_with_instructions_keeps_the_turns_steps(self, workspace, tmp_path):
        """The model's compact_context with instructions in the middle of its only turn: the
        next request still holds the turn's earlier calls (only `/compact` from the user may
        summarise the last turn)."""
        script = [
            Reply(tool_calls=[("bash", {"command": "echo step 1; seq 1 600"})]),
            Reply(tool_calls=[("bash", {"command": "echo step 2; seq 1 600"})]),
            Reply(tool_calls=[("compact_context", {"instructions": "keep the step numbers"})]),
            Reply(text="done"),
        ]

        def model(body: dict) -> Reply:
            if is_summary_request(body):
                return Reply(text="<retain>steps</retain><summary>Two steps ran.</summary>")
            return script.pop(0)

        with FakeOpenAI(window=16000, responder=model) as srv:
            cfg = make_config(srv, tmp_path / "c.db", window=16000)
            services = await build_services(cfg, workspace=workspace)
            try:
                session = await services.new_session(yes=True)
                await collect(session.run_turn("count your steps please"))
                calls = [
                    c["function"]["arguments"]
                    for m in srv.requests[-1]["messages"]
                    for c in m.get("tool_calls") or []
                ]
                assert any("echo step 1;" in a for a in calls) and any("echo step 2;" in a for a in calls), (
                    calls
                )
            finally:
                await services.close()
