"""The TUI is a front end of the typed protocol: a tab maps a send, Esc and /compact to operations
on its own `SessionDriver` and renders the events the driver hands it. Driven by Pilot against the
local model server; what the tab did is read back from the driver's event log."""

from __future__ import annotations

import threading

import pytest

from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.frontends.tui.textual_compat import notifications
from agent_tui.frontends.tui.widgets.chat_items import AgentItem, NoticeItem, UserItem
from agent_tui.frontends.tui.widgets.mode_line import ModeLine
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, send, settle, until


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


def finished(view) -> list[pe.WorkFinished]:
    return [e for _, e in view.driver.log.after(0) if isinstance(e, pe.WorkFinished)]


class TestOperations:
    async def test_a_send_and_a_compact_are_operations_on_the_tabs_driver(self, server, config, workspace):
        server.enqueue(Reply(text="hello back"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hello")
            await settle(pilot)
            assert [i.entry.text for i in app.query(AgentItem)] == ["hello back"]
            await send(pilot, "/compact")
            await settle(pilot)
            assert finished(app.view) == [pe.WorkFinished("send", "done"), pe.WorkFinished("compact", "done")]

    async def test_esc_interrupts_the_drivers_work(self, server, config, workspace):
        rest = threading.Event()  # the reply stalls mid-stream: Esc lands mid-turn
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(200)), hold=rest))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "talk a lot")
            try:
                await until(pilot, lambda: len(app.query(AgentItem)) == 1, what="streaming")
                await pilot.press("escape")
                await settle(pilot)
            finally:
                rest.set()
            assert finished(app.view) == [pe.WorkFinished("send", "interrupted")]
            assert "Cancelled." in [n.entry.text for n in app.query(NoticeItem)]
            assert not app.view.driver.busy

    async def test_a_send_the_driver_refuses_goes_back_to_the_input(self, server, config, workspace):
        """Another client of the same driver (an attached front end) is running a turn the tab did
        not start: the tab's send is refused, said in one line, and the typed text is kept."""
        rest = threading.Event()
        server.enqueue(Reply(text="theirs " * 50, hold=rest), Reply(text="mine"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            view = app.view
            try:
                await view.driver.submit(ops.Send("from elsewhere"))
                await until(pilot, lambda: view.driver.busy, what="the other client's turn")
                await send(pilot, "please keep this")
                await until(pilot, lambda: view.prompt.text == "please keep this", what="the text back")
                assert any("busy" in n.message and n.severity == "error" for n in notifications(app))
            finally:
                rest.set()
            await until(pilot, lambda: not view.driver.busy, what="the other turn's end")
            await settle(pilot)
            await pilot.press("enter")  # sent again once the session is free: it goes through
            await until(pilot, lambda: "mine" in [i.entry.text for i in app.query(AgentItem)], what="reply")
            assert "please keep this" in [i.entry.text for i in app.query(UserItem)]


def replaced(view) -> list[pe.SessionReplaced]:
    return [e for _, e in view.driver.log.after(0) if isinstance(e, pe.SessionReplaced)]


class TestModelAndMode:
    async def test_model_is_set_model_on_the_tabs_driver(self, server, config, workspace):
        """/model NAME submits `set_model` to the tab's driver (not a reopening of its own): the
        driver's session is the tab's, on the new model, the chat stays and says the model."""
        server.enqueue(Reply(text="first"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            view = app.view
            session_id = view.session.session_id
            await send(pilot, "/model openai/other-model")
            await settle(pilot)
            assert replaced(view) == [pe.SessionReplaced(session_id, "openai/other-model")]
            assert view.driver.session is view.session and view.session.model == "openai/other-model"
            assert [i.entry.text for i in app.query(AgentItem)] == ["first"]
            assert "Model: openai/other-model" in [n.entry.text for n in app.query(NoticeItem)]
            assert not view.busy

    async def test_shift_tab_is_set_mode_on_the_tabs_driver_even_mid_turn(self, server, config, workspace):
        """Shift+Tab submits `set_mode` to the tab's driver, which takes it while a turn runs:
        the session's mode and the mode line change, and the driver says so."""
        rest = threading.Event()  # the reply stalls mid-stream: the turn is running
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(200)), hold=rest))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            view = app.view
            await send(pilot, "talk a lot")
            try:
                await until(pilot, lambda: view.driver.busy, what="the turn")
                view.prompt.focus()
                await pilot.press("shift+tab")
                await until(pilot, lambda: view.session.mode == "accept_edits", what="the mode")
                assert view.driver.busy
            finally:
                rest.set()
            await settle(pilot)
            said = [e for _, e in view.driver.log.after(0) if isinstance(e, pe.CommandReplied)]
            assert said == [pe.CommandReplied("Permission mode", "Permission mode: accept edits.", "info")]
            assert "accept edits" in str(app.query_one(ModeLine).render())


def replies(view) -> list[pe.CommandReplied]:
    return [e for _, e in view.driver.log.after(0) if isinstance(e, pe.CommandReplied)]


class TestSessionCommandsAreOperations:
    async def test_effort_rename_remember_and_undo_go_through_the_tabs_driver(self, config, workspace):
        """/effort, /rename, /remember and /undo submit set_effort, rename, remember and undo to
        the tab's driver, and a command `run` offers too (/cost) the `command` operation: its log
        has each reply, and the tab renders the event (the block, the
        renamed label, the effort a later /model keeps)."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            view = app.view
            typed = (
                "/effort high",
                "/rename fixing the cart",
                "/remember tests live in t/",
                "/undo",
                "/cost",
            )
            for line in typed:
                await send(pilot, line)
                await settle(pilot)
            titles = [reply.title for reply in replies(view)]
            assert titles == ["/effort high", "/rename", "/remember", "/undo", "/cost"]  # /cost: `command`
            renamed = replies(view)[1]
            assert renamed.renamed == "fixing the cart" and renamed.prose == "Renamed: fixing the cart"
            assert view.title == "fixing the cart"
            assert view.services.config.model.reasoning_effort == "high"  # the tab's config follows
            assert "Remembered" in printed(app) and "Reasoning: effort high" in printed(app)

    async def test_a_reply_with_rows_keeps_them_in_the_event(self, config, workspace):
        """A reply's rows travel typed in the event; its text is the plain rendering."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            view = app.view
            await view.driver.submit(ops.RunCommand("/cost"))
            cost = replies(view)[-1]
            assert cost.rows and all(len(row) == 2 for row in cost.rows)
            assert cost.rows[0][0] in cost.text and cost.reply().plain() == cost.text

    async def test_status_typed_while_the_tab_opens_is_answered_once_it_is_open(
        self, server, config, workspace
    ):
        """Before the services are built there is no driver: /status and /cost (taken at once
        otherwise) wait in the queue, and once the session is open the driver answers them about
        it, in order; a prompt typed behind them goes out after them."""
        import asyncio

        from agent_tui.compose.factory import build_services
        from agent_tui.frontends.tui.app import AgentApp

        server.enqueue(Reply(text="after the commands"))
        release = asyncio.Event()

        async def services():
            await release.wait()  # the opening waits until the test has typed /status
            return await build_services(config, workspace=workspace)

        app = AgentApp(services, workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            try:
                await until(pilot, lambda: app.view is not None and app.view.services is None, what="the tab")
                view = app.view
                for line in ("/status", "/cost", "hello"):
                    await send(pilot, line)
                await until(
                    pilot, lambda: list(view.queue) == ["/status", "/cost", "hello"], what="the queue"
                )
                assert printed(app) == "" and not view.prompt.text  # nothing answered, nothing lost
            finally:
                release.set()
            await settle(pilot)
            assert [reply.title for reply in replies(view)] == ["/status", "/cost"]  # the driver's
            assert view.session.session_id in printed(app)  # about the open session, not the empty tab
            assert "none configured" not in printed(app)
            assert [i.entry.text for i in app.query(AgentItem)] == ["after the commands"]
            assert not view.busy and not view.queue

    async def test_status_in_a_tab_that_did_not_open_says_so_and_keeps_the_text(self, workspace):
        """No services at all (the store could not be opened): there is no driver to answer
        /status; the tab says so in one line and the typed text stays in the input."""
        from agent_tui.frontends.tui.app import AgentApp

        async def services():
            return None

        app = AgentApp(services, workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/status")
            await until(pilot, lambda: app.view.prompt.text == "/status", what="the text back")
            assert any(
                "/status: the tab's session did not open" in str(n.message) for n in notifications(app)
            )
            assert printed(app) == ""
