"""Tabs running independent sessions at once, closing them, and the app without a model."""

from __future__ import annotations

import threading

import pytest

from agent_tui.base.messages import assistant, user
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.frontends.tui.app import AgentApp
from agent_tui.frontends.tui.screens.dialogs import ConfirmScreen
from agent_tui.frontends.tui.screens.resume import ResumeScreen
from agent_tui.frontends.tui.textual_compat import notifications
from agent_tui.frontends.tui.widgets.chat_items import AgentItem, UserItem
from agent_tui.frontends.tui.widgets.session_view import SessionView
from agent_tui.frontends.tui.widgets.status import NoModelPanel
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until

SLOW = " ".join(f"w{i}" for i in range(240))


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


class TestTabs:
    async def test_two_tabs_run_turns_at_once(self, server, config, workspace):
        """Each tab has its own session and worker; both turns stream at the same time."""
        # Both replies stop after their first chunks until the test saw both streaming.
        both = threading.Event()
        server.enqueue(Reply(text=SLOW, hold=both), Reply(text=SLOW, hold=both))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            first = app.view
            await pilot.press("ctrl+t")
            await settle(pilot)
            second = app.view
            assert second is not first and second.session is not None
            await pilot.press("ctrl+pageup")
            assert app.view is first
            await send(pilot, "tab one")
            await pilot.press("ctrl+pagedown")
            assert app.view is second
            await send(pilot, "tab two")
            try:
                await until(
                    pilot,
                    lambda: first._live is not None and second._live is not None,
                    timeout=20,
                    what="both turns streaming at once",
                )
            finally:
                both.set()
            await settle(pilot)
            assert first.session.session_id != second.session.session_id
            for view, prompt in ((first, "tab one"), (second, "tab two")):
                assert [i.entry.text for i in view.query(UserItem)] == [prompt]
                assert [i.entry.text for i in view.query(AgentItem)] == [SLOW]
                assert [m.content for m in view.session.history if m.role == "user"] == [prompt]

    async def test_close_running_tab_asks(self, server, config, workspace):
        """Ctrl+W on a tab with a running turn asks first; n keeps it, y closes it."""
        rest = threading.Event()  # the turn stays mid-stream while the test closes its tab
        server.enqueue(Reply(text=" ".join(f"x{i}" for i in range(300)), hold=rest))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+t")
            await settle(pilot)
            await send(pilot, "long")
            try:
                await until(pilot, lambda: app.view._live is not None, what="streaming")
                await pilot.press("ctrl+w")
                await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
                await pilot.press("n")
                await pilot.pause()
                assert len(app.query(SessionView)) == 2
                await pilot.press("ctrl+w")
                await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
                await pilot.press("y")
                await settle(pilot)
            finally:
                rest.set()
            assert len(app.query(SessionView)) == 1

    async def test_closing_the_last_tab_opens_a_new_one(self, config, workspace):
        """The app always keeps one tab."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            first = app.view.session.session_id
            await pilot.press("ctrl+w")
            await settle(pilot)
            assert len(app.query(SessionView)) == 1
            assert app.view.session.session_id != first


class TestNoModel:
    async def test_opens_and_explains(self, tmp_path, workspace):
        """Without a model the app opens with one panel saying how to set one."""
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}},
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            panel = app.query_one(NoModelPanel)
            assert panel.display
            text = screen_text(app)
            for part in (
                "No model configured",
                "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY",
                "config.toml",
                "--api-base http://localhost:11434/v1",
            ):
                assert part in text
            await send(pilot, "hello?")
            await pilot.pause()
            assert app.view.prompt.text == "hello?"
            assert any("No model configured" in n.message for n in notifications(app))

    async def test_sessions_stay_browsable(self, tmp_path, workspace):
        """/resume still lists sessions and shows the chosen one read-only."""
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}},
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        services = await build_services(config, workspace=workspace)
        info = await services.store.sessions.create(str(workspace), "openai/gone", title="past")
        await services.store.sessions.append(info.id, [user("old question"), assistant("old answer")])
        await services.close()
        app = AgentApp(lambda: build_services(config, workspace=workspace), workspace=workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/resume")
            await until(pilot, lambda: isinstance(app.screen, ResumeScreen), what="the picker")
            await pilot.press("enter")
            await settle(pilot)
            assert [i.entry.text for i in app.query(UserItem)] == ["old question"]
            assert "Read-only" in screen_text(app)


class TestOneTabPerSession:
    async def test_resume_of_a_session_open_in_another_tab_switches_to_it(self, server, config, workspace):
        """Two tabs on one session appended two diverging histories into one transcript:
        /resume of the open session now switches to its tab instead of opening it again."""
        server.enqueue(Reply(text="first answer"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            first = app.view
            await send(pilot, "first question")
            await until(pilot, lambda: not first.busy, what="the first turn")
            await pilot.press("ctrl+t")
            await settle(pilot)
            second = app.view
            assert second is not first
            await send(pilot, "/resume")
            await until(pilot, lambda: isinstance(app.screen, ResumeScreen), what="the picker")
            await pilot.press("enter")  # the only non-empty session: the one tab 1 has open
            await until(pilot, lambda: app.view is first, what="the switch to tab 1")
            assert second.session.session_id != first.session.session_id
            open_ids = [v.session.session_id for v in app.query(SessionView) if v.session]
            assert open_ids.count(first.session.session_id) == 1
            assert any("already open in tab 1" in n.message for n in notifications(app))
