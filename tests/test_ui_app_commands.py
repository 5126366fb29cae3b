"""Slash commands and the command palette, through the real agent loop and a temp database."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import DataTable

from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.screens.dialogs import HelpScreen
from agent_tui.frontends.tui.screens.resume import ResumeScreen
from agent_tui.frontends.tui.textual_compat import notifications
from agent_tui.frontends.tui.widgets.chat import WINDOW, ChatPane
from agent_tui.frontends.tui.widgets.chat_items import AgentItem, NoticeItem, UserItem
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, notices, screen_text, send, settle, until
from tests.support.ui_session_fixtures import stored_chat


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


class TestCompact:
    async def test_compact_shows_progress_then_result(self, server, config, workspace):
        """/compact shows the running strategy on the meter line, then a one-line result."""
        (workspace / "big.txt").write_text("".join(f"line {i} of the log\n" for i in range(3000)))
        server.enqueue(
            Reply(tool_calls=[("read_file", {"path": "big.txt"})]),
            Reply(text="It is a log."),
            Reply(text="next"),
        )
        summary = "<retain>big.txt</retain><summary>We read big.txt, a log.</summary>"
        server.responder = lambda request: Reply(text=summary, chunk_delay=0.02)
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "read big.txt")
            await settle(pilot)
            await send(pilot, "and then?")
            await settle(pilot)
            meter = app.query_one(ContextMeter)
            seen: list[str] = []
            show_activity = meter.set_activity

            def record(text):  # observe what the meter line shows, then show it
                seen.append(text)
                show_activity(text)

            meter.set_activity = record
            await send(pilot, "/compact keep file names")
            await settle(pilot)
            assert any(text and text.startswith("compacting") for text in seen), seen
            assert seen[-1] is None
            notices = [n.entry.text for n in app.query(NoticeItem)]
            assert any(t.startswith(("Compacted", "Compaction skipped")) for t in notices)
            assert meter.activity is None
            assert "keep file names" in str(server.requests[-1]["messages"])

    async def test_resumed_after_compaction_shows_the_whole_transcript(self, server, tmp_path, workspace):
        """A compacted session reopens with every turn the user saw, plus a notice."""
        server.responder = lambda request: Reply(
            text="<retain>notes</retain><summary>Two questions were asked.</summary>"
        )
        config = make_config(server, tmp_path / "small.db", window=9_000)  # room for every built-in tool
        bulk = " ".join(f"w{i}" for i in range(600))  # under the 4 KB paste threshold
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            for prompt in (f"first question {bulk}", f"second question {bulk}", "/compact"):
                await send(pilot, prompt)
                await settle(pilot)
            session_id = app.view.session.session_id
            assert any(m.kind == "summary" for m in app.view.session.history)
            await pilot.press("ctrl+t")
            await settle(pilot)
            await app.view.open_new(session_id)
            await settle(pilot)
            assert [i.entry.text[:15] for i in app.view.query(UserItem)] == [
                "first question ",
                "second question",
            ]
            assert "Compacted earlier" in app.view.query(NoticeItem).last().entry.text

    async def test_compact_waits_for_a_running_turn(self, server, config, workspace):
        """/compact typed during a turn is queued like a prompt, not lost."""
        rest = threading.Event()  # the reply stalls mid-stream until /compact is queued
        server.enqueue(Reply(text=" ".join(f"w{i}" for i in range(100)), hold=rest))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "talk")
            try:
                await until(pilot, lambda: len(app.query(AgentItem)) == 1, what="streaming")
                await send(pilot, "/compact")
                await pilot.pause()
                assert list(app.view.queue) == ["/compact"]
            finally:
                rest.set()
            await settle(pilot)
            assert any(
                n.entry.text.startswith(("Compacted", "Compaction skipped")) for n in app.query(NoticeItem)
            )


class TestSessions:
    async def test_new_starts_an_empty_session(self, server, config, workspace):
        """/new replaces the tab's session with a fresh one and clears the chat."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hello")
            await settle(pilot)
            first = app.view.session.session_id
            await send(pilot, "/new")
            await settle(pilot)
            assert app.view.session.session_id != first
            assert not app.query(UserItem)

    async def test_resume_picker_opens_a_stored_session(self, config, workspace):
        """/resume lists stored sessions (title, age, size); Enter opens one in the tab."""
        session_id = await stored_chat(config, workspace, 3, title="fix the cart")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/resume")
            await until(pilot, lambda: isinstance(app.screen, ResumeScreen), what="the picker")
            text = screen_text(app)
            assert "fix the cart" in text and "just now" in text
            table = app.screen.query_one(DataTable)
            row = table.get_row_index(session_id)
            table.move_cursor(row=row)
            await pilot.press("enter")
            await settle(pilot)
            assert app.view.session.session_id == session_id
            assert [i.entry.text for i in app.query(UserItem)] == ["question 0", "question 1", "question 2"]
            assert "fix the cart" in screen_text(app)

    async def test_continue_opens_the_newest(self, config, workspace):
        """--continue resumes the newest session of the workspace."""
        session_id = await stored_chat(config, workspace, 2)
        app = make_app(config, workspace, continue_=True)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert app.view.session.session_id == session_id
            assert len(app.query(AgentItem)) == 2

    async def test_big_session_mounts_only_the_newest(self, config, workspace):
        """A 2 000-message session opens with only the newest entries mounted."""
        session_id = await stored_chat(config, workspace, 1000)
        app = make_app(config, workspace, session_id=session_id)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            chat = app.query_one(ChatPane)
            assert len(chat.entries) == 2000 and chat.mounted_count == WINDOW
            assert chat.unmounted_count == 2000 - WINDOW
            assert "question 999" in screen_text(app)

    async def test_model_switch(self, config, workspace):
        """/model NAME reopens the tab's session on another model, keeping its history."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            session_id = app.view.session.session_id
            await send(pilot, "/model openai/other-model")
            await settle(pilot)
            assert app.view.session.model == "openai/other-model"
            assert app.view.session.session_id == session_id
            assert len(app.query(UserItem)) == 1
            assert "openai/other-model" in screen_text(app)

    async def test_a_switch_to_another_provider_leaves_the_local_server_behind(self, config, workspace):
        """/model anthropic/… from a config pointing at a local server kept its api_base: the new
        model's requests went to the local server (and its window override stayed). Now what
        described the old model's server stays behind, and a notice says so."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/model anthropic/claude-sonnet-4-5")
            await settle(pilot)
            assert app.view.session.model == "anthropic/claude-sonnet-4-5"
            assert app.view.session.provider.where == "https://api.anthropic.com"
            assert app.view.session.limits.context_window != 32_000
            assert "api_base" in notices(app) and "context_window" in notices(app)

    async def test_another_model_on_the_same_server_keeps_it(self, config, workspace, server):
        """A bare or openai/ name beside an api_base is another model on that same server."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/model openai/other-model")
            await settle(pilot)
            assert app.view.session.provider.api_base == server.base_url
            assert app.view.session.limits.context_window == 32_000


class TestDialogs:
    async def test_context_help_quit(self, config, workspace):
        """/context shows the component table, /help and F1 the help; /quit leaves."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/context")
            await pilot.pause()
            assert isinstance(app.screen, ContextScreen)
            assert "tool descriptions" in screen_text(app)
            await pilot.press("escape")
            await send(pilot, "/help")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.press("f1")
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await send(pilot, "/quit")
            await pilot.pause()
            assert app.return_code is not None  # exit() was called

    async def test_unknown_command_is_explained(self, config, workspace):
        """A mistyped command says /help lists them, and the text stays in the input."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/frobnicate now")
            await pilot.pause()
            assert app.view.prompt.text == "/frobnicate now"
            assert any("/help" in n.message for n in notifications(app))

    async def test_palette_runs_the_same_actions(self, config, workspace):
        """Ctrl+P lists the commands; choosing Context opens the /context modal."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            titles = {c.title for c in app.get_system_commands(app.screen)}
            assert {
                "Compact",
                "Context",
                "New session",
                "Resume session",
                "Model",
                "New tab",
                "Close tab",
                "Help",
            } <= titles
            await pilot.press("ctrl+p")
            await pilot.press(*"Context")
            await until(pilot, lambda: "Context" in screen_text(app), what="the palette")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
