"""The first request leaves without a round trip the user typed through: a session is made ready
(`prepare`) while the message is being written, so the first turn's pre-flight does not ask a
server that cannot count (any OpenAI-compatible server but llama.cpp) after Enter.

Found by profiling the TUI's Enter → first request (issue 39): the first turn posted
`/apply-template`, waited for its 404, and only then sent the request — a round trip that
benchmarks/startup.py timed as "the first request" because it stamped any POST.
"""

from __future__ import annotations

import pytest

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


@pytest.fixture
async def driver(server, workspace, tmp_path):
    services = await build_services(
        make_config(server, tmp_path / "p.db", cwd=workspace), workspace=workspace
    )
    driver = SessionDriver(services, approval_timeout=30)
    driver.session = await services.new_session(driver.approver)
    yield driver
    await driver.close()
    await services.close()


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
