"""What an attached front end reads from `agent-tui serve` beside the events — the /context
report, the stored outputs (listed, read by window, grepped), the approvals waiting — and the
approvals shortcut (GET what waits, POST the answer), over real HTTP to a real server process."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from agent_tui.core import ops
from agent_tui.frontends.server.client import AgentClient, ServerError
from testkit.fake_openai import Reply
from tests.support.serve import WAIT, Served, start_serve, until


@pytest.fixture
def served(server, workspace, tmp_path):
    running = start_serve(server, tmp_path / "serve.db", workspace)
    yield running
    running.stop()


class TestApprovalsShortcut:
    async def test_pending_approvals_are_listed_and_answered_by_post(self, server, served: Served, workspace):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo hi > made.txt"})]), Reply(text="made"))
        async with AgentClient(served.url, served.token) as client:
            session = await client.create_session()
            stream = client.events(session)
            await client.submit(session, ops.Send("make a file"))
            asked = (await asyncio.wait_for(until(stream, "approval_requested"), WAIT))[-1]
            raw = httpx.AsyncClient(base_url=served.url, headers={"Authorization": f"Bearer {served.token}"})
            async with raw:
                pending = (await raw.get(f"/v1/sessions/{session}/approvals")).json()["pending"]
                assert [p["request_id"] for p in pending] == [asked.data["request_id"]]
                mid_turn = await client.context(session, savings=False)  # the last measurement, unchanged
                assert mid_turn["savings"] is None and mid_turn["report"]["budget"]["conversation"] > 0
                busy = await client.operate(session, ops.Send("another prompt"))
                assert "busy" in busy["refused"]  # told to the one who sent it, in the answer
                assert pending[0]["tool"] == "bash" and "made.txt" in pending[0]["preview"]
                bad = await raw.post(
                    f"/v1/sessions/{session}/approvals/{asked.data['request_id']}", json={"action": "maybe"}
                )
                assert bad.status_code == 400 and "action" in bad.json()["error"]
                unknown = await raw.post(f"/v1/sessions/{session}/approvals/a999", json={"action": "deny"})
                assert unknown.status_code == 409
                answered = await raw.post(
                    f"/v1/sessions/{session}/approvals/{asked.data['request_id']}",
                    json={"action": "allow_once"},
                )
                assert answered.status_code == 200, answered.text
                again = await raw.post(
                    f"/v1/sessions/{session}/approvals/{asked.data['request_id']}",
                    json={"action": "allow_once"},
                )
                assert again.status_code == 409  # answered once, never twice
                rest = await asyncio.wait_for(until(stream, "work_finished"), WAIT)
                assert (await raw.get(f"/v1/sessions/{session}/approvals")).json()["pending"] == []
                refused = await raw.get(
                    f"/v1/sessions/{session}/approvals", headers={"Authorization": "Bearer no"}
                )
                assert refused.status_code == 401
            await stream.aclose()
        resolved = next(e for e in rest if e.type == "approval_resolved")
        assert resolved.data["by"] == "client" and resolved.data["action"] == "allow_once"
        assert (workspace / "made.txt").read_text() == "hi\n"


class TestReads:
    async def test_context_and_stored_outputs_are_read_bounded_and_token_checked(
        self, server, served: Served
    ):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 3000"})]), Reply(text="counted"))
        async with AgentClient(served.url, served.token) as client:
            session = await client.create_session()
            stream = client.events(session)
            await client.submit(session, ops.Send("count"))
            asked = (await asyncio.wait_for(until(stream, "approval_requested"), WAIT))[-1]
            await client.answer(session, asked.data["request_id"], "allow_once")
            rest = await asyncio.wait_for(until(stream, "work_finished"), WAIT)
            await stream.aclose()
            ref = next(e for e in rest if e.type == "tool_call_finished").data["ref"]["id"]

            context = await client.context(session)
            report = context["report"]
            assert report["budget"]["conversation"] > 0 and report["budget"]["total"] > 0
            assert any(item["ref"] == ref for item in report["largest"])
            assert 0 < context["target_ratio"] < 1 and isinstance(context["savings"], dict)

            listed = (await client.blobs(session))["blobs"]
            assert [b["ref"]["id"] for b in listed] == [ref] and listed[0]["ref"]["line_count"] == 3000
            assert (await client.blobs())["blobs"][0]["ref"]["id"] == ref  # the folder's, by default
            window = await client.blob(ref, start=2998, count=3)
            assert window["lines"] == ["2998", "2999", "3000"]
            assert window["resolved"]["ref"]["tool_name"] == "bash"
            found = await client.grep(ref, "^299[0-9]$")
            assert "2995:2995" in found["text"]
            hits = (await client.blobs(session, query="2995"))["hits"]
            assert hits and hits[0]["ref"]["id"] == ref

            with pytest.raises(ServerError) as too_many:
                await client.blob(ref, count=100_000)
            assert too_many.value.status == 400
            with pytest.raises(ServerError) as bad_pattern:
                await client.grep(ref, "([")
            assert bad_pattern.value.status == 400
            with pytest.raises(ServerError) as unknown:
                await client.blob("r_nothere", count=1)
            assert unknown.value.status in (400, 404)
            with pytest.raises(ServerError) as other_folder:
                await client._call("GET", "/v1/blobs", params={"project": "/somewhere/else"})
            assert other_folder.value.status == 404
        async with httpx.AsyncClient(base_url=served.url) as raw:
            for path in ("/v1/blobs", f"/v1/blobs/{ref}", f"/v1/sessions/{session}/context"):
                assert (await raw.get(path)).status_code == 401, path
