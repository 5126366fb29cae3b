"""`agent-tui acp` driven as an editor drives it: the ACP SDK's client over the subprocess's
stdio, the strict local OpenAI server, a real database, real tools."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from acp import schema as s
from acp import text_block

from testkit.fake_openai import Reply
from tests.support.acp_client import WAIT, cli, open_agent


def prompt(conn, session_id: str, text: str):
    return asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block(text)]), WAIT)


class TestSession:
    async def test_prompt_streams_text_and_usage_in_order(self, server, workspace, tmp_path):
        """initialize → session/new → a prompt: the reply arrives as message chunks in order,
        a usage_update follows the step, the turn ends with end_turn, and the session is in the
        same store `sessions list` reads."""
        db = tmp_path / "a.db"
        server.enqueue(Reply(text="one two three four five six", words_per_chunk=1))
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            assert new.session_id.startswith("s_")
            assert {"ask", "accept-edits", "plan"} <= {m.id for m in new.modes.available_modes}
            await client.wait_for(lambda: client.of("available_commands_update"))
            names = {c.name for c in client.of("available_commands_update")[0].available_commands}
            assert {"compact", "context"} <= names
            client.clear()
            done = await prompt(conn, new.session_id, "count to six")
            assert done.stop_reason == "end_turn"
            chunks = [u.content.text for u in client.of("agent_message_chunk")]
            assert len(chunks) == 6 and "".join(chunks) == "one two three four five six"
            kinds = [u.session_update for u in client.updates]
            assert kinds.index("usage_update") < kinds.index("agent_message_chunk")
            assert kinds[-1] == "usage_update"  # after the step: where the meter now stands
        listing = cli(["sessions", "list", "--db", str(db)], workspace)
        assert new.session_id in listing.stdout

    async def test_session_from_the_editor_continues_in_run(self, server, workspace, tmp_path):
        """A session made in the editor is resumed by `run --session` with its history."""
        db = tmp_path / "c.db"
        server.enqueue(Reply(text="the editor said this"))
        async with open_agent(server, db, workspace) as (conn, _proc, _client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            await prompt(conn, new.session_id, "first, in the editor")
        server.enqueue(Reply(text="and the terminal continues"))
        out = cli(
            [
                "run", "second, in the terminal", "--session", new.session_id,
                "--model", "openai/fake-model", "--api-base", server.base_url,
                "--context-window", "32000", "--db", str(db),
            ],
            workspace,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        sent = json.dumps(server.requests[-1]["messages"])
        assert "first, in the editor" in sent and "the editor said this" in sent

    async def test_a_provider_error_is_said_in_the_chat_and_the_session_goes_on(
        self, server, workspace, tmp_path
    ):
        """A 401 from the provider: the editor sees one error paragraph, the prompt ends normally
        (not a JSON-RPC error), and the next prompt in the same session works."""
        db = tmp_path / "x.db"
        server.enqueue(Reply(status=401), Reply(text="back again"))
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            assert (await prompt(conn, new.session_id, "hi")).stop_reason == "end_turn"
            assert "error (auth)" in client.text()
            await prompt(conn, new.session_id, "hi again")
            assert "back again" in client.text()


class TestPermission:
    async def test_bash_asks_then_runs_when_allowed_and_not_when_denied(self, server, workspace, tmp_path):
        """A command needs permission: the editor gets the tool call (kind execute, its command as
        title), then the question with our four choices; allowed it runs and its output comes
        back as the call's content; denied it does not run and the call fails."""
        db = tmp_path / "p.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo made > made.txt && echo wrote it"})]),
            Reply(text="done"),
            Reply(tool_calls=[("bash", {"command": "echo again > denied.txt"})]),
            Reply(text="ok, not doing it"),
        )
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_once"]
            assert (await prompt(conn, new.session_id, "make a file")).stop_reason == "end_turn"
            start = client.of("tool_call")[0]
            assert start.kind == "execute" and start.title.startswith("echo made > made.txt")
            (asked, options) = client.permissions[0]
            assert asked.tool_call_id == start.tool_call_id
            assert [o.option_id for o in options] == ["allow_once", "allow_session", "allow_always", "deny"]
            finished = [u for u in client.of("tool_call_update") if u.status == "completed"]
            assert finished and "wrote it" in finished[-1].content[0].content.text
            assert (workspace / "made.txt").read_text() == "made\n"
            order = [u.session_update for u in client.updates]
            assert order.index("tool_call") < order.index("tool_call_update")

            client.clear()
            client.answers = ["deny"]
            await prompt(conn, new.session_id, "make another")
            assert len(client.permissions) == 1
            failed = [u for u in client.of("tool_call_update") if u.status == "failed"]
            assert failed and "denied" in failed[-1].content[0].content.text.lower()
            assert not (workspace / "denied.txt").exists()

    async def test_edit_is_sent_as_a_diff_and_protected_paths_ask_once_only(
        self, server, workspace, tmp_path
    ):
        """write_file shows as an edit with the file's location and an old → new diff; a write
        to a protected path offers only allow once and deny (no sandbox: it would refuse it)."""
        db = tmp_path / "e.db"
        (workspace / "notes.txt").write_text("old line\n")
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "notes.txt", "content": "new line\n"})]),
            Reply(text="edited"),
            Reply(tool_calls=[("write_file", {"path": ".agent-tui.toml", "content": "x = 1\n"})]),
            Reply(text="not allowed"),
        )
        async with open_agent(server, db, workspace, "--sandbox", "off") as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_once"]
            await prompt(conn, new.session_id, "edit notes")
            start = client.of("tool_call")[0]
            assert start.kind == "edit" and start.locations[0].path == str(
                (workspace / "notes.txt").resolve()
            )
            diff = [u for u in client.of("tool_call_update") if u.status == "completed"][-1].content[0]
            assert diff.type == "diff" and diff.old_text == "old line\n" and diff.new_text == "new line\n"

            client.clear()
            client.answers = ["deny"]
            await prompt(conn, new.session_id, "change the config")
            _, options = client.permissions[0]
            assert [o.option_id for o in options] == ["allow_once", "deny"]
            assert not (workspace / ".agent-tui.toml").exists()

    async def test_unsandboxed_rerun_asks_every_time_with_two_choices(
        self, bwrap, server, workspace, tmp_path
    ):
        """With the sandbox on, a command the model asks to rerun outside it offers only allow
        once and deny, and asks again the next time even though it was allowed."""
        db = tmp_path / "r.db"
        rerun = {"command": "echo outside > out.txt", "unsandboxed": True}
        server.enqueue(
            Reply(tool_calls=[("bash", rerun)]),
            Reply(tool_calls=[("bash", rerun)]),
            Reply(text="ran it twice"),
        )
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_once", "allow_once"]
            await prompt(conn, new.session_id, "run it outside")
            assert len(client.permissions) == 2
            for _, options in client.permissions:
                assert [o.option_id for o in options] == ["allow_once", "deny"]
            assert (workspace / "out.txt").read_text() == "outside\n"


class TestUsage:
    async def test_usage_update_numbers_are_the_context_reports(self, server, workspace, tmp_path):
        """The usage_update after a turn carries the meter's used tokens and effective window,
        and `/context` (as a prompt) reports exactly those numbers."""
        db = tmp_path / "u.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 300"})]), Reply(text="counted"))
        async with open_agent(server, db, workspace, "--sandbox", "off") as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            await conn.set_session_mode(session_id=new.session_id, mode_id="ask")
            client.answers = ["allow_once"]
            await prompt(conn, new.session_id, "count")
            usage = client.of("usage_update")[-1]
            assert 0 < usage.used < usage.size
            assert usage.field_meta["agentTui"]["window"] == 32_000
            client.clear()
            await prompt(conn, new.session_id, "/context")
            report = client.text()
            used, effective = re.search(r"Used ([\d ]+) of ([\d ]+) tokens", report).groups()
            assert int(used.replace(" ", "")) == usage.used
            assert int(effective.replace(" ", "")) == usage.size
            assert len(server.requests) == 2  # /context is ours: the model was not asked


class TestEditorBuffers:
    async def test_read_file_sees_an_unsaved_buffer_and_edits_do_not_clobber_it(
        self, server, workspace, tmp_path
    ):
        """A client offering fs/read_text_file: read_file returns the editor's unsaved text (and
        says so), and a write to that file is refused, the disk left as it was."""
        db = tmp_path / "b.db"
        notes = workspace / "notes.txt"
        notes.write_text("saved on disk\n")
        server.enqueue(
            Reply(tool_calls=[("read_file", {"path": "notes.txt"})]),
            Reply(tool_calls=[("write_file", {"path": "notes.txt", "content": "replaced\n"})]),
            Reply(text="could not write"),
        )
        caps = s.ClientCapabilities(fs=s.FileSystemCapabilities(read_text_file=True))
        async with open_agent(server, db, workspace, "--sandbox", "off", capabilities=caps) as (
            conn,
            _proc,
            client,
        ):
            client.buffers[str(notes.resolve())] = "typed but not saved\n"
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_once"]
            await prompt(conn, new.session_id, "read and rewrite notes")
        tool_results = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
        assert "typed but not saved" in tool_results[-1]["content"]
        assert "unsaved changes" in tool_results[-1]["content"]
        refused = [m for m in server.requests[2]["messages"] if m["role"] == "tool"][-1]
        assert "unsaved changes in the editor" in refused["content"]
        assert notes.read_text() == "saved on disk\n"

    async def test_a_write_goes_through_the_editor_when_it_offers_that(self, server, workspace, tmp_path):
        """A client offering fs/write_text_file receives the text our write_file put on disk."""
        db = tmp_path / "w.db"
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "fresh.txt", "content": "from the agent\n"})]),
            Reply(text="written"),
        )
        caps = s.ClientCapabilities(fs=s.FileSystemCapabilities(read_text_file=True, write_text_file=True))
        async with open_agent(server, db, workspace, "--sandbox", "off", capabilities=caps) as (
            conn,
            _proc,
            client,
        ):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            client.answers = ["allow_once"]
            await prompt(conn, new.session_id, "write a file")
            assert client.writes == [(str((workspace / "fresh.txt").resolve()), "from the agent\n")]


class TestTurnContent:
    async def test_thinking_large_output_and_auto_mode(self, bwrap, server, workspace, tmp_path):
        """A reasoning model's thinking arrives as thought chunks; in `auto` mode a sandboxed
        command runs without a question; its large output comes back as our view with the ref
        (head, tail, the footer naming the ref) and the ref in _meta."""
        db = tmp_path / "t.db"
        server.enqueue(
            Reply(reasoning="let me count first", tool_calls=[("bash", {"command": "seq 1 6000"})]),
            Reply(text="counted"),
        )
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            await conn.set_session_mode(session_id=new.session_id, mode_id="auto")
            await prompt(conn, new.session_id, "count far")
            assert client.text("agent_thought_chunk") == "let me count first"
            assert client.permissions == []
            done = [u for u in client.of("tool_call_update") if u.status == "completed"][-1]
            ref = done.field_meta["agentTui"]["ref"]
            view = done.content[0].content.text
            assert view.startswith("1\n") and "6000" in view and ref in view
            assert len(view) < len("\n".join(str(i) for i in range(1, 6001)))


class TestModes:
    async def test_auto_is_one_sessions_mode_and_is_kept_with_it(self, bwrap, server, workspace, tmp_path):
        """Two editor sessions in one process: `auto` on the first lets its sandboxed command
        run unasked; the second, still in `ask`, asks for the same command. The mode is the
        session's own (the `set_mode` operation): loaded again, the first is still in auto."""
        db = tmp_path / "modes.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "touch one"})]),
            Reply(text="ran"),
            Reply(tool_calls=[("bash", {"command": "touch two"})]),
            Reply(text="denied"),
        )
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            first = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            second = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            await conn.set_session_mode(session_id=first.session_id, mode_id="auto")
            await prompt(conn, first.session_id, "make one")
            assert client.permissions == [] and (workspace / "one").exists()
            client.answers = ["deny"]
            await prompt(conn, second.session_id, "make two")
            assert len(client.permissions) == 1 and not (workspace / "two").exists()
        async with open_agent(server, db, workspace) as (conn, _proc, _client):
            loaded = await asyncio.wait_for(
                conn.load_session(cwd=str(workspace), session_id=first.session_id, mcp_servers=[]), WAIT
            )
            assert loaded.modes.current_mode_id == "auto"

    async def test_every_declared_mode_is_offered_and_a_stored_one_is_reported(
        self, server, workspace, tmp_path
    ):
        """A session left in plan mode (the `set_mode` operation, as the TUI's Shift+Tab
        submits it), loaded in the editor, is reported in plan (not `ask`); the editor is offered
        every mode the policy declares, with a description, and `set_mode` to accept-edits makes
        the next edit run unasked and is kept with the session."""
        from agent_tui.compose.factory import build_services
        from agent_tui.core import ops
        from agent_tui.core.driver import SessionDriver
        from agent_tui.policy.permission_modes import DECLARED
        from tests.support.agent_fixtures import make_config

        db = tmp_path / "plan.db"
        services = await build_services(make_config(server, db, cwd=workspace), workspace=workspace)
        driver = SessionDriver(services)
        driver.session = await services.new_session(driver.approver)
        await driver.submit(ops.SetMode("plan"))
        stored = driver.session.session_id
        await driver.close()
        await services.close()
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "made.txt", "content": "hello"})]),
            Reply(text="written"),
        )
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            loaded = await asyncio.wait_for(
                conn.load_session(cwd=str(workspace), session_id=stored, mcp_servers=[]), WAIT
            )
            assert loaded.modes.current_mode_id == "plan"
            offered = {m.id: m for m in loaded.modes.available_modes}
            assert {d.editor_id for d in DECLARED if not d.needs_sandbox} <= set(offered)
            assert all(m.description for m in offered.values())
            await conn.set_session_mode(session_id=stored, mode_id="accept-edits")
            await prompt(conn, stored, "write it")
            assert client.permissions == [] and (workspace / "made.txt").read_text() == "hello"
        async with open_agent(server, db, workspace) as (conn, _proc, _client):
            again = await asyncio.wait_for(
                conn.load_session(cwd=str(workspace), session_id=stored, mcp_servers=[]), WAIT
            )
            assert again.modes.current_mode_id == "accept-edits"

    async def test_an_unknown_mode_is_refused_with_the_known_ones_named(self, server, workspace, tmp_path):
        """`set_mode` to a mode no declaration has is an invalid-params error naming the modes."""
        from acp import RequestError

        async with open_agent(server, tmp_path / "u.db", workspace) as (conn, _proc, _client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            with pytest.raises(RequestError) as refused:
                await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
            assert "plan" in str(refused.value.data) and "accept-edits" in str(refused.value.data)


class TestEditorMcp:
    async def test_the_editors_stdio_mcp_server_joins_the_session(self, server, workspace, tmp_path):
        """An MCP server the client passes in session/new (a real stdio server) is started and
        its tools are offered from the first request."""
        from tests.support.mcp import installed

        db = tmp_path / "m.db"
        server.enqueue(Reply(text="I have a clock"))
        time_server = s.McpServerStdio(
            name="clock", command=installed("mcp-server-time"), args=["--local-timezone", "UTC"], env=[]
        )
        # A window where the built-ins and the clock's tools stay under the deferral line (10 %):
        # in 32k they pass it since the background tools joined, and MCP tools wait behind
        # tool_search (the design's deferral; the server is still started and attached).
        async with open_agent(server, db, workspace, window=64_000) as (conn, _proc, _client):
            new = await asyncio.wait_for(
                conn.new_session(cwd=str(workspace), mcp_servers=[time_server]), WAIT
            )
            await prompt(conn, new.session_id, "what time is it?")
        offered = {t["function"]["name"] for t in server.requests[0].get("tools", [])}
        assert any(name.startswith("clock__") for name in offered), offered
