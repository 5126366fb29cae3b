"""The first request leaves without a round trip the user typed through: a session is made ready
(`prepare`) while the message is being written, so the first turn's pre-flight does not ask a
server that cannot count (any OpenAI-compatible server but llama.cpp) after Enter.

Found by profiling the TUI's Enter → first request (issue 39): the first turn posted
`/apply-template`, waited for its 404, and only then sent the request — a round trip that
benchmarks/startup.py timed as "the first request" because it stamped any POST.
"""

from __future__ import annotations

import asyncio
import threading

from agent_tui.compose.factory import build_services
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.driver import SessionDriver
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until

COUNT = "/apply-template"
CHAT = "/v1/chat/completions"


def paths(server, since: int = 0) -> list[str]:
    return [r.path for r in server.recorded[since:] if r.path in (COUNT, CHAT)]


async def send(driver: SessionDriver, text: str) -> None:
    async for event in driver.drive(ops.Send(text)):
        if isinstance(event, pe.WorkFinished):
            assert event.state == "done", event.message


class TestPrepare:
    async def test_without_it_the_first_turn_asks_the_server_to_count_first(self, driver, server):
        """The control: a first turn nobody prepared posts the count, then the request."""
        server.enqueue(Reply(text="hi"))
        await send(driver, "hello")
        assert paths(server) == [COUNT, CHAT]

    async def test_a_prepared_session_sends_its_first_request_at_once(self, driver, server):
        """Prepared, the server is asked before the message is sent; the turn then posts only
        the request, and the meter still has its figure."""
        await driver.submit(ops.Prepare())
        assert paths(server) == [COUNT], "asked while the user writes"
        server.enqueue(Reply(text="hi"))
        await send(driver, "hello")
        assert paths(server) == [COUNT, CHAT]
        assert driver.require().last_budget is not None

    async def test_preparing_twice_asks_once_and_says_nothing(self, driver, server):
        """Every key may prepare: the server is asked once, and no event is logged."""
        before = driver.log.last_id
        await driver.submit(ops.Prepare())
        await driver.submit(ops.Prepare())
        assert paths(server) == [COUNT]
        assert driver.log.last_id == before

    async def test_preparing_while_a_turn_runs_is_not_refused(self, driver, server):
        """A key typed while the agent works is no "busy" refusal in the log."""
        server.enqueue(Reply(text="hi"))
        start = driver.log.last_id
        await driver.submit(ops.Send("hello"))
        assert driver.busy
        await driver.submit(ops.Prepare())
        events = []
        async for _, event in driver.log.follow(start):
            events.append(event)
            if isinstance(event, pe.WorkFinished):
                break
        assert not [e for e in events if isinstance(e, pe.OperationRefused)]


class TestTheRequestDoesNotWaitForTheStore:
    async def test_a_busy_store_does_not_hold_back_the_request(self, driver, server):
        """The user's message is stored while its request leaves: with the database's thread
        busy (a slow disk, another tab's write), the request still arrives; once the store is
        free the transcript has the message and the reply, in order."""
        db = driver.services.store.sessions.db
        release = threading.Event()
        blocking = asyncio.ensure_future(db.transact(lambda conn: release.wait(30)))
        server.enqueue(Reply(text="answered"))
        start = driver.log.last_id
        await driver.submit(ops.Send("hello"))
        try:
            for _ in range(1000):  # wait for the request (a thread of the server records it)
                if server.requests:
                    break
                await asyncio.sleep(0.005)
            assert server.requests, "the request waited for the store"
        finally:
            release.set()
        await blocking
        async for _, event in driver.log.follow(start):
            if isinstance(event, pe.WorkFinished):
                assert event.state == "done", event.message
                break
        session = driver.require()
        stored = await driver.services.store.sessions.transcript(session.session_id)
        assert [(m.role, m.content) for m in stored] == [("user", "hello"), ("assistant", "answered")]

    async def test_a_message_whose_send_fails_is_stored_then_marked_unsent(self, driver, server):
        """The request fails before anything came back: the transcript has the message, then
        the marker that it was not sent (resume skips both), as when the store was waited for."""
        server.enqueue(Reply(status=400, text="boom"))
        async for event in driver.drive(ops.Send("hello")):
            if isinstance(event, pe.WorkFinished):
                break
        session = driver.require()
        stored = await driver.services.store.sessions.transcript(session.session_id)
        assert stored[0].content == "hello" and len(stored) == 2, stored
        assert "hello" not in [m.content for m in session.history], "a retry sends it once"


class TestTheTuiPrepares:
    async def test_the_first_key_asks_the_server_before_enter(self, server, tmp_path, workspace):
        """Typing the first message is what prepares the tab's session: the count is asked
        before Enter, and after Enter the request goes out alone."""
        app = make_app(make_config(server, tmp_path / "ui.db"), workspace)
        server.enqueue(Reply(text="hello back"))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            app.view.prompt.focus()
            await pilot.press("h", "i")
            await until(pilot, lambda: paths(server) == [COUNT], what="the server asked while typing")
            await pilot.press("enter")
            await until(pilot, lambda: server.requests, what="the request")
            await settle(pilot)
            assert paths(server) == [COUNT, CHAT]

    async def test_a_key_typed_while_the_tab_opens_prepares_it_once_open(self, server, tmp_path, workspace):
        """The first keys may come before the session is open (a fast typist, a slow store):
        the session is prepared when it opens, without another key."""
        from agent_tui.frontends.tui.app import AgentApp

        config = make_config(server, tmp_path / "ui.db")
        release = asyncio.Event()

        async def services():
            await release.wait()  # the opening waits until the test has typed
            return await build_services(config, workspace=workspace)

        app = AgentApp(services, workspace=workspace)
        async with app.run_test(size=(100, 30)) as pilot:
            try:
                await until(pilot, lambda: app.view is not None and app.view.services is None, what="the tab")
                app.view.prompt.focus()
                await pilot.press("h", "i")
                assert paths(server) == []
            finally:
                release.set()
            await until(pilot, lambda: paths(server) == [COUNT], what="the server asked once open")
            await settle(pilot)
            assert app.view.prompt.text == "hi"
