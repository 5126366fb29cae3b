"""The TUI attached to a served core (`agent-tui --attach`): a real `agent-tui serve` process, a
real Textual app driven by Pilot. A turn whose tool call waits for the attached TUI's approval,
the meter showing the served session's budget, the blob browser and /context over the server's
stored outputs and report; a second client's turn shown live; a dropped connection mid-turn that
loses and doubles no event in the chat."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.core import ops
from agent_tui.frontends.server.client import AgentClient
from agent_tui.frontends.server.remote import RemoteDriver
from agent_tui.frontends.tui.attach_app import AttachApp
from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from agent_tui.frontends.tui.screens.remote_context import RemoteContextScreen
from agent_tui.frontends.tui.transcript import AgentEntry, ToolEntry, UserEntry
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from testkit.fake_openai import Reply
from tests.support.serve import Served, start_serve
from tests.support.ui_helpers import notices, screen_text, until, until_armed

WAIT = 60.0


@pytest.fixture
def served(server, workspace, tmp_path):
    running = start_serve(server, tmp_path / "serve.db", workspace)
    yield running
    running.stop()


async def attached(served: Served, session: str | None = None) -> AttachApp:
    async def opener() -> RemoteDriver:
        client = AgentClient(served.url, served.token)
        driver = await RemoteDriver.attach(client, session)
        driver.owns_client = True
        return driver

    return AttachApp(opener, where=served.url)


async def until_type(stream, kind: str) -> list:
    seen = []
    async for event in stream:
        seen.append(event)
        if event.type == kind:
            return seen
    raise AssertionError(f"no {kind}")


async def type_and_send(pilot, text: str) -> None:
    prompt = pilot.app.view.prompt
    prompt.focus()
    prompt.set_text(text)
    await pilot.press("enter")


def entries(app: AttachApp, kind: type) -> list:
    return [e for e in app.view.query_one("#chat").entries if isinstance(e, kind)]


class TestAttachedTui:
    async def test_approval_meter_blob_browser_and_context_over_the_server(
        self, server, served: Served, workspace
    ):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 3000"})]), Reply(text="counted to 3000"))
        app = await attached(served)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            meter = app.view.query_one(ContextMeter)
            await until(pilot, lambda: meter.budget is not None, WAIT, "the meter's first budget")
            first = meter.budget.used
            await type_and_send(pilot, "count to 3000")
            await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), WAIT, "the approval dialog")
            assert "seq 1 3000" in screen_text(app)
            await until_armed(pilot)
            await pilot.press("1", "enter")  # allow once
            await until(pilot, lambda: not app.view.busy, WAIT, "the turn's end")
            assert [e.text for e in entries(app, UserEntry)] == ["count to 3000"]
            assert [e.text for e in entries(app, AgentEntry)] == ["counted to 3000"]
            assert meter.budget.used > first  # the served session's measurements reach the meter
            assert "%" in screen_text(app)

            await type_and_send(pilot, "/blobs")
            await until(pilot, lambda: isinstance(app.screen, BlobsScreen), WAIT, "the blob browser")
            browser = app.screen
            await until(pilot, lambda: len(browser.rows) == 1, WAIT, "the stored output listed")
            (row,) = browser.rows.values()
            assert row.ref.tool_name == "bash" and row.ref.line_count == 3000
            viewer = browser.viewer
            await until(
                pilot, lambda: viewer.source is not None and viewer.settled, WAIT, "the newest opened"
            )
            viewer.goto(2999)  # read from the server a window at a time
            await until(pilot, lambda: viewer.settled and "2999" in screen_text(app), WAIT, "line 2999")
            assert "3000" in screen_text(app)
            await pilot.press("escape", "escape")
            await until(pilot, lambda: not isinstance(app.screen, BlobsScreen), WAIT, "the browser closed")

            await type_and_send(pilot, "/context")
            await until(pilot, lambda: isinstance(app.screen, RemoteContextScreen), WAIT, "/context")
            text = screen_text(app)
            assert "bash seq 1 3000" in text and "If you compact now" in text

    async def test_a_command_reply_is_the_same_block_as_in_a_local_tab(self, server, served: Served):
        """`/cost` typed in the attached TUI is the server's `command` operation; its
        `command_reply` event is rendered as a local tab renders a reply: a block headed by the
        command, its rows aligned (not one notice line)."""
        from agent_tui.frontends.tui.transcript import OutputEntry

        app = await attached(served)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            await type_and_send(pilot, "/cost")
            await until(pilot, lambda: entries(app, OutputEntry), WAIT, "the reply block")
            block = entries(app, OutputEntry)[0]
            assert block.command == "/cost" and "\n" in block.text and "Input" in block.text

    async def test_a_command_that_is_an_operation_works_attached(self, server, workspace, tmp_path):
        """/skill NAME and /effort, operations of their own (`activate_skill`, `set_effort`), go
        to the served session as a local tab's go to its driver: each answers with its block,
        and the skill is in the served session's next request."""
        from agent_tui.frontends.tui.transcript import OutputEntry
        from agent_tui.runtime import paths
        from tests.support.skills import write_skill

        write_skill(paths.config_dir() / "skills")  # the served process's config folder too
        served = start_serve(server, tmp_path / "skill.db", workspace)  # finds the skill as it starts
        try:
            server.enqueue(Reply(text="ok"))
            app = await attached(served)
            async with app.run_test(size=(120, 36)) as pilot:
                await until(pilot, lambda: app.view is not None, WAIT, "attached")
                await type_and_send(pilot, "/skill db-migrations")
                await until(pilot, lambda: entries(app, OutputEntry), WAIT, "the skill's reply")
                assert "db-migrations active" in entries(app, OutputEntry)[0].text
                await type_and_send(pilot, "/effort")
                await until(pilot, lambda: len(entries(app, OutputEntry)) == 2, WAIT, "the effort's reply")
                assert "Reasoning" in entries(app, OutputEntry)[1].text
                await type_and_send(pilot, "go")
                await until(pilot, lambda: entries(app, AgentEntry), WAIT, "the reply")
        finally:
            served.stop()
        assert "Reviewing database migrations" in str(server.requests[-1]["messages"])

    async def test_review_is_the_review_operation_on_the_served_session(self, server, served: Served):
        """/review typed in the attached TUI is the `review` operation, work like a local tab's:
        the served session's log has its `work_finished`, and the tab is free after it."""
        from agent_tui.core import protocol_events as pe

        app = await attached(served)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            await type_and_send(pilot, "/review")

            def reviewed() -> bool:
                return pe.WorkFinished("review", "done") in [e for _, e in app.view.driver.log.after(0)]

            await until(pilot, reviewed, WAIT, "the review's end")
            await until(pilot, lambda: not app.view.busy, WAIT, "the tab free again")
            assert "/review:" in screen_text(app)  # not a git repository: said, nothing sent
        assert server.requests == []

    async def test_escape_interrupts_the_served_work(self, server, served: Served, workspace):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "sleep 60 && touch late.txt"})]))
        app = await attached(served)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            await type_and_send(pilot, "wait a minute")
            await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), WAIT, "the approval dialog")
            await until_armed(pilot)
            await pilot.press("1", "enter")
            await until(pilot, lambda: "running bash" in screen_text(app), WAIT, "the command running")
            app.view.prompt.focus()
            await pilot.press("escape")
            await until(pilot, lambda: not app.view.busy, WAIT, "the interrupt")
            assert "Cancelled." in screen_text(app)
        async with AgentClient(served.url, served.token) as client:
            stream = client.events(app.driver.session_id)
            finished = (await asyncio.wait_for(until_type(stream, "work_finished"), WAIT))[-1]
            await stream.aclose()
        assert finished.data["state"] == "interrupted"

    async def test_a_server_that_cannot_be_reached_is_one_line_and_the_app_stays(self):
        async def opener() -> RemoteDriver:
            client = AgentClient("http://127.0.0.1:9", "token")
            try:
                return await RemoteDriver.attach(client)
            finally:
                await client.close()

        app = AttachApp(opener, where="http://127.0.0.1:9")
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: "Could not attach" in notices(app), WAIT, "the notice")
            assert "could not attach to http://127.0.0.1:9" in screen_text(app)
            assert app.is_running


class TestPictures:
    async def test_a_pasted_picture_goes_with_the_served_send(self, server, served: Served, tmp_path):
        """A picture's path dropped into the attached TUI is a chip, as in a local tab; the send
        carries the bytes (`Send.images`, base64) to the served session — a screenshot's size,
        more than an ordinary request body — the model gets the picture, the chat its chip."""
        import base64

        from textual import events

        from tests.support.images import image_urls, png

        data = png(64, 32, pad=400_000)
        folder = tmp_path / "Pictures"  # the attached machine's, not the served workspace
        folder.mkdir()
        (folder / "My Shot.png").write_bytes(data)
        server.enqueue(Reply(text="a grey strip"))
        app = await attached(served)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"what is ")
            app.post_message(events.Paste(f"'{folder / 'My Shot.png'}' "))
            await until(pilot, lambda: "[image" in prompt.text, WAIT, "the chip")
            await pilot.press("enter")
            await until(pilot, lambda: entries(app, AgentEntry), WAIT, "the reply")
            sent = server.requests[-1]["messages"][-1]
            assert image_urls(sent) == ["data:image/png;base64," + base64.b64encode(data).decode()]
            (chip,) = entries(app, UserEntry)[0].chips
            assert chip.startswith("[image My Shot.png ") and chip.endswith(" KB]")


class TestLive:
    async def test_a_dropped_connection_mid_turn_loses_and_doubles_no_event(self, server, served: Served):
        from urllib.parse import urlparse

        from tests.support.drop_proxy import DropProxy

        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo one"})]), Reply(text="done after the drop")
        )
        async with DropProxy(urlparse(served.url).port) as proxy:
            app = await attached(Served(served.process, proxy.url, served.token, served.token_file))
            async with app.run_test(size=(120, 36)) as pilot:
                await until(pilot, lambda: app.view is not None, WAIT, "attached")
                await type_and_send(pilot, "run it")
                await until(
                    pilot, lambda: isinstance(app.screen, ApprovalScreen), WAIT, "the approval dialog"
                )
                before = app.driver.last_server_id
                connected = proxy.connections
                proxy.drop()  # mid-turn: the event stream (and every pooled connection) is cut
                await until_armed(pilot)
                await pilot.press("1", "enter")
                await until(pilot, lambda: not app.view.busy, WAIT, "the turn's end")
                assert proxy.dropped == 1 and proxy.connections > connected  # it did reconnect
                said = notices(app)
                assert "Lost the connection to the server" in said and "no event was missed" in said
                assert app.driver.last_server_id > before
                assert [e.text for e in entries(app, UserEntry)] == ["run it"]
                assert [e.text for e in entries(app, AgentEntry)] == ["done after the drop"]
                assert [e.name for e in entries(app, ToolEntry)] == ["bash"]
                seen = [type(e).type for _, e in app.driver.log.after(0)]
                session = app.driver.session_id
        async with AgentClient(served.url, served.token) as client:
            whole = []
            async for event in client.events(session):
                whole.append(event.type)
                if event.type == "work_finished":
                    break
        assert seen == whole  # every event once, in the server's order

    async def test_a_stopped_server_is_said_and_the_chat_stays(self, server, served: Served):
        server.enqueue(Reply(text="before the stop"))
        app = await attached(served)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            await type_and_send(pilot, "hi")
            await until(pilot, lambda: not app.view.busy and entries(app, AgentEntry), WAIT, "the answer")
            served.stop()
            gone = ("The server ended the event stream", "Lost the connection to the server")
            await until(pilot, lambda: any(g in notices(app) for g in gone), WAIT, "the loss said")
            assert [e.text for e in entries(app, AgentEntry)] == ["before the stop"]

    async def test_attaching_mid_turn_replays_it_and_asks_the_waiting_approval(self, server, served: Served):
        """A script's turn waits for an approval; a TUI attached then shows the turn so far (its
        prompt, the answered approval of an earlier call not asked again) and the waiting one."""
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo first"})]),
            Reply(tool_calls=[("bash", {"command": "echo second"})]),
            Reply(text="both ran"),
        )
        async with AgentClient(served.url, served.token) as client:
            session = await client.create_session()
            stream = client.events(session)
            await client.submit(session, ops.Send("run two commands"))
            first = (await asyncio.wait_for(until_type(stream, "approval_requested"), WAIT))[-1]
            await client.answer(session, first.data["request_id"], "allow_once")
            await asyncio.wait_for(until_type(stream, "approval_requested"), WAIT)
            await stream.aclose()
            app = await attached(served, session)
            async with app.run_test(size=(120, 36)) as pilot:
                await until(
                    pilot, lambda: isinstance(app.screen, ApprovalScreen), WAIT, "the waiting approval"
                )
                await until_armed(pilot)
                await until(pilot, lambda: "echo second" in screen_text(app), WAIT, "the dialog drawn")
                assert "echo first" not in app.screen.request.preview
                await pilot.press("1", "enter")
                await until(pilot, lambda: entries(app, AgentEntry), WAIT, "the answer")
                await until(pilot, lambda: not app.view.busy, WAIT, "the turn's end")
                assert [e.text for e in entries(app, UserEntry)] == ["run two commands"]
                assert [e.text for e in entries(app, AgentEntry)] == ["both ran"]
                assert len(entries(app, ToolEntry)) == 2

    async def test_two_attached_tuis_see_one_session_live(self, server, served: Served):
        server.enqueue(
            Reply(text="hello both"),
            Reply(tool_calls=[("bash", {"command": "echo two > two.txt"})]),
            Reply(text="wrote it"),
        )
        one = await attached(served)
        async with one.run_test(size=(120, 36)) as first:
            await until(first, lambda: one.view is not None, WAIT, "the first attached")
            two = await attached(served, one.driver.session_id)
            async with two.run_test(size=(120, 36)) as second:
                await until(second, lambda: two.view is not None, WAIT, "the second attached")
                await type_and_send(first, "hi")
                for pilot, app in ((first, one), (second, two)):
                    await until(pilot, lambda app=app: entries(app, AgentEntry), WAIT, "the answer")
                    await until(pilot, lambda app=app: not app.view.busy, WAIT, "the turn's end")
                    assert [e.text for e in entries(app, UserEntry)] == ["hi"]
                    assert [e.text for e in entries(app, AgentEntry)] == ["hello both"]

                await type_and_send(second, "write two")  # the second asks; both are asked
                for pilot, app in ((first, one), (second, two)):
                    await until(pilot, lambda app=app: isinstance(app.screen, ApprovalScreen), WAIT, "asked")
                await until_armed(first)
                await first.press("1", "enter")  # the first answers: the second's dialog closes
                await until(second, lambda: not isinstance(two.screen, ApprovalScreen), WAIT, "closed")
                assert "Approval allow once: answered by another client." in notices(two)
                for pilot, app in ((first, one), (second, two)):
                    await until(pilot, lambda app=app: len(entries(app, AgentEntry)) == 2, WAIT, "2nd answer")
                    await until(pilot, lambda app=app: not app.view.busy, WAIT, "the turn's end")
                    assert [e.text for e in entries(app, UserEntry)] == ["hi", "write two"]
                    assert [e.text for e in entries(app, AgentEntry)] == ["hello both", "wrote it"]


class TestImports:
    def test_the_commands_the_attached_tui_opens_itself_are_registry_commands(self):
        from agent_tui.core.commands import BY_NAME
        from agent_tui.frontends.tui.attach_app import AttachApp
        from agent_tui.frontends.tui.widgets.attached_view import LOCAL_COMMANDS

        for name in LOCAL_COMMANDS:
            assert name[1:] in BY_NAME and hasattr(AttachApp, f"action_{name[1:]}"), name

    def test_attaching_loads_no_server_library_and_the_tui_no_attach_code(self):
        """--attach is a client: starlette and uvicorn stay out; the plain TUI's start-up loads
        neither the attached app nor the server package."""
        import subprocess
        import sys

        probe = (
            "import sys\n"
            "import agent_tui.frontends.tui.app, agent_tui.frontends.cli.main\n"
            "plain = sorted(m for m in sys.modules if m.startswith(('agent_tui.frontends.server', 'agent_tui.frontends.tui.attach')))\n"
            "import agent_tui.frontends.cli.attach_cmd, agent_tui.frontends.tui.attach_app, agent_tui.frontends.server.remote\n"
            "print(plain, sorted(m for m in ('starlette', 'uvicorn') if m in sys.modules))"
        )
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "[] []"

    def test_a_bad_url_or_no_token_is_one_clear_line(self, workspace, tmp_path, monkeypatch):
        from tests.support.cli import run_cli

        monkeypatch.delenv("AGENT_TUI_TOKEN", raising=False)
        not_url = run_cli(["--attach", "devbox:8765"], workspace)
        assert not_url.returncode == 2 and "http://" in not_url.stderr and "Traceback" not in not_url.stderr
        no_token = run_cli(["--attach", "http://127.0.0.1:9", "--db", str(tmp_path / "none.db")], workspace)
        assert no_token.returncode == 2 and "no token for --attach" in no_token.stderr
        assert "Traceback" not in no_token.stderr
        local = run_cli(["--attach", "http://127.0.0.1:9", "--model", "gpt-x", "-c"], workspace)
        assert local.returncode == 2 and "--model, --continue cannot go with --attach" in local.stderr


async def test_a_sub_agent_line_streams_and_folds_in_the_attached_tui(tmp_path, workspace):
    """A served turn's `task` call: its child's line appears under it and folds to its state and
    transcript ref, as in a local tab; the child's approval is answered in the attached TUI."""
    from agent_tui.frontends.tui.widgets.child_lines import ChildLine
    from testkit.fake_openai import FakeOpenAI
    from tests.support.subagent_model import Model, after_tool

    def child(body):
        return (
            Reply(text="touched")
            if after_tool(body)
            else Reply(tool_calls=[("bash", {"command": "touch by-child"})])
        )

    def parent(body):
        return (
            Reply(text="all done")
            if after_tool(body)
            else Reply(tool_calls=[("task", {"description": "make a file", "prompt": "make a file"})])
        )

    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        served = start_serve(server, tmp_path / "serve.db", workspace)
        try:
            app = await attached(served)
            async with app.run_test(size=(120, 36)) as pilot:
                await until(pilot, lambda: app.view is not None, WAIT, "attached")
                await type_and_send(pilot, "go")
                await until(
                    pilot, lambda: isinstance(app.screen, ApprovalScreen), WAIT, "the child's approval"
                )
                await until_armed(pilot)
                await until(
                    pilot, lambda: "sub-agent: make a file" in screen_text(app), WAIT, "the child named"
                )
                await pilot.press("1", "enter")
                await until(pilot, lambda: not app.view.busy, WAIT, "the turn's end")
                (line,) = app.query(ChildLine)
                text = screen_text(app)
                answers = [e.text for e in entries(app, AgentEntry)]
        finally:
            served.stop()
    assert (workspace / "by-child").exists()
    assert "make a file  completed" in text and "/m_1-4" in text
    assert answers == ["all done"]


class TestAttachedPrepares:
    async def test_typing_prepares_the_served_session_before_enter(self, server, served: Served):
        """As in a local tab, the first key makes the served session ready: the server is asked
        to count before Enter, and after Enter the request goes out alone."""
        count, chat = "/apply-template", "/v1/chat/completions"

        def paths() -> list[str]:
            return [r.path for r in server.recorded if r.path in (count, chat)]

        server.enqueue(Reply(text="hello back"))
        app = await attached(served)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.view is not None, WAIT, "attached")
            app.view.prompt.focus()
            await pilot.press("h", "i")
            await until(pilot, lambda: paths() == [count], WAIT, "the server asked while typing")
            await pilot.press("enter")
            await until(pilot, lambda: entries(app, AgentEntry), WAIT, "the reply")
            assert paths() == [count, chat]
