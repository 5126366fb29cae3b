"""`agent-tui serve` as a subprocess, driven over real HTTP by the typed client
(agent_tui/frontends/server/client.py) and by a raw HTTP client: a turn whose tool call waits for a
client's approval, a reconnect mid-turn that loses no event, a request without the token
refused, two clients on one session, a fork (the source's `fork` operation), bad input answered
while the server keeps serving, and SIGTERM ending the server with every command it started."""

from __future__ import annotations

import asyncio
import os
import stat

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


class TestServe:
    async def test_a_turn_with_a_tool_call_and_an_approval(self, server, served: Served, workspace):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo hi > made.txt"})]), Reply(text="made it"))
        async with AgentClient(served.url, served.token) as client:
            session = await client.create_session()
            stream = client.events(session)
            await client.submit(session, ops.Send("make a file"))
            asked = (await asyncio.wait_for(until(stream, "approval_requested"), WAIT))[-1]
            assert asked.data["tool"] == "bash" and "made.txt" in asked.data["preview"]
            await client.submit(session, ops.Approve(asked.data["request_id"], "allow_once"))
            rest = await asyncio.wait_for(until(stream, "work_finished"), WAIT)
            await stream.aclose()
        kinds = [e.type for e in rest]
        assert "tool_call_finished" in kinds and "turn_finished" in kinds
        assert next(e for e in rest if e.type == "turn_finished").data["text"] == "made it"
        assert (workspace / "made.txt").read_text() == "hi\n"
        assert rest[-1].data["state"] == "done"

    async def test_reconnect_mid_turn_loses_and_doubles_no_event(self, server, served: Served):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo one"})]), Reply(text="done"))
        async with AgentClient(served.url, served.token) as client:
            session = await client.create_session()
            first = client.events(session)
            await client.submit(session, ops.Send("run it"))
            before = await asyncio.wait_for(until(first, "approval_requested"), WAIT)
            await first.aclose()  # the connection drops mid-turn
            await client.submit(session, ops.Approve(before[-1].data["request_id"], "allow_once"))
            after = await asyncio.wait_for(
                until(client.events(session, before[-1].id), "work_finished"), WAIT
            )
            whole = await asyncio.wait_for(until(client.events(session), "work_finished"), WAIT)
        ids = [e.id for e in before + after]
        assert ids == list(range(1, len(ids) + 1))
        assert [e.type for e in before + after] == [e.type for e in whole]

    async def test_two_clients_on_one_session_see_the_same_events(self, server, served: Served):
        server.enqueue(Reply(text="hello both"))
        async with AgentClient(served.url, served.token) as one, AgentClient(served.url, served.token) as two:
            session = await one.create_session()
            assert await two.resume_session(session) == session
            a, b = one.events(session), two.events(session)
            await two.submit(session, ops.Send("hi"))
            seen_a, seen_b = await asyncio.wait_for(
                asyncio.gather(until(a, "work_finished"), until(b, "work_finished")), WAIT
            )
            await a.aclose()
            await b.aclose()
            listed = await one.sessions()
        assert [(e.id, e.type) for e in seen_a] == [(e.id, e.type) for e in seen_b]
        assert any(e.type == "turn_finished" and e.data["text"] == "hello both" for e in seen_a)
        assert session in [s["session_id"] for s in listed["open"]]

    async def test_a_fork_is_opened_and_a_bad_fork_point_answered(self, server, served: Served):
        """POST …/fork: 201 with the copy's session (open, stored, titled); a fork point past the
        end is a 400 with the store's words, an unknown session a 404; each is the source's `fork`
        operation, whose events its followers see."""
        server.enqueue(Reply(text="first answer"))
        async with AgentClient(served.url, served.token) as client:
            session = await client.create_session("source")
            stream = client.events(session)
            await client.submit(session, ops.Send("hello"))
            await asyncio.wait_for(until(stream, "work_finished"), WAIT)
            auth = {"Authorization": f"Bearer {served.token}"}
            async with httpx.AsyncClient(base_url=served.url, timeout=WAIT, headers=auth) as raw:
                made = await raw.post(f"/v1/sessions/{session}/fork", json={"before": 2})
                assert made.status_code == 201, made.text
                copy = made.json()
                assert set(copy) == {"session_id", "model", "title", "busy"}
                assert copy["title"] == "source (fork)" and copy["busy"] is False
                assert copy["session_id"] != session
                past = await raw.post(f"/v1/sessions/{session}/fork", json={"before": 99})
                assert past.status_code == 400
                assert "fork point must be a message number" in past.json()["error"]
                missing = await raw.post("/v1/sessions/s_nope/fork", json={})
                assert missing.status_code == 404
            named = await client.fork_session(session, title="copy")
            listed = await client.sessions()
            first = await asyncio.wait_for(until(stream, "session_forked"), WAIT)
            second = await asyncio.wait_for(until(stream, "session_forked"), WAIT)
            await stream.aclose()
        # The source's followers see the fork operation it was: each copy, and the refusal.
        assert first[-1].data["session_id"] == copy["session_id"]
        assert [e.type for e in second] == ["operation_refused", "session_forked"]
        assert second[0].data["operation"] == "fork" and second[-1].data["session_id"] == named
        assert {session, copy["session_id"], named} <= {s["session_id"] for s in listed["open"]}
        titles = {s["session_id"]: s["title"] for s in listed["stored"]}
        assert titles[named] == "copy" and titles[copy["session_id"]] == "source (fork)"

    async def test_the_token_is_required_and_bad_input_is_answered(self, served: Served):
        assert stat.S_IMODE(os.stat(served.token_file).st_mode) == 0o600
        assert served.url.startswith("http://127.0.0.1:")
        async with httpx.AsyncClient(base_url=served.url, timeout=WAIT) as raw:
            assert (await raw.get("/v1/sessions")).status_code == 401
            wrong = await raw.get("/v1/sessions", headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401 and "token" in wrong.json()["error"]
            auth = {"Authorization": f"Bearer {served.token}"}
            made = await raw.post("/v1/sessions", json={}, headers=auth)
            assert made.status_code == 201
            ops_url = f"/v1/sessions/{made.json()['session_id']}/operations"
            broken = await raw.post(ops_url, content=b"{not json", headers=auth)
            assert broken.status_code == 400 and "not JSON" in broken.json()["error"]
            unknown = await raw.post(ops_url, json={"type": "launch"}, headers=auth)
            assert unknown.status_code == 400 and "unknown operation type 'launch'" in unknown.json()["error"]
            huge = await raw.post(ops_url, json={"type": "send", "text": "x" * 400_000}, headers=auth)
            assert huge.status_code == 413
            crowd = [{"name": f"{n}.png", "media_type": "image/png", "data": "iVBO"} for n in range(9)]
            many = await raw.post(ops_url, json={"type": "send", "text": "x", "images": crowd}, headers=auth)
            assert many.status_code == 413 and "pictures" in many.json()["error"]
            missing = await raw.post(
                "/v1/sessions/s_nope/operations", json={"type": "interrupt"}, headers=auth
            )
            assert missing.status_code == 404
            schema = await raw.get("/v1/schema/operations", headers=auth)
            assert schema.status_code == 200 and schema.json()["title"] == "agent-tui operation"
            assert (await raw.get("/v1/sessions", headers=auth)).status_code == 200  # still serving
        async with AgentClient(served.url, "wrong") as client:
            with pytest.raises(ServerError) as refused:
                await client.sessions()
        assert refused.value.status == 401

    async def test_sigterm_ends_the_server_and_the_commands_it_started(
        self, server, served: Served, workspace
    ):
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo $$ > pid.txt; sleep 600"})]), Reply(text="x")
        )
        async with AgentClient(served.url, served.token) as client:
            session = await client.create_session()
            stream = client.events(session, reconnect=False)
            await client.submit(session, ops.Send("wait a long time"))
            asked = (await asyncio.wait_for(until(stream, "approval_requested"), WAIT))[-1]
            await client.submit(session, ops.Approve(asked.data["request_id"], "allow_once"))
            pid_file = workspace / "pid.txt"
            while not pid_file.is_file() or not pid_file.read_text().strip():
                await asyncio.sleep(0.05)  # polls a file the command writes; no timing asserted
            pid = int(pid_file.read_text())
            served.process.terminate()
            await asyncio.to_thread(served.process.wait, WAIT)
            with pytest.raises(httpx.TransportError):
                async for _ in stream:
                    pass
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
