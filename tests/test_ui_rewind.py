"""Rewind and fork in the TUI (Pilot over the real loop, the local server and real files): back
to an earlier message with its text in the input, files restored, the meter re-measured, the
discarded branch still found by recall; /fork opens a copy in a new tab."""

from __future__ import annotations

import json

import pytest

from agent_tui.frontends.tui.screens.rewind import RewindScreen
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, notices, screen_text, send, settle, until, until_armed


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db", tools={"allow": ["write_file", "edit_file"]})


def contents(request: dict) -> list[tuple[str, str]]:
    out = []
    for m in request["messages"][1:]:
        text = m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        out.append((m["role"], text or ""))
    return out


async def three_turns(pilot, server) -> None:
    server.enqueue(Reply(text="noted: the colour is blue"))
    await send(pilot, "first: remember the colour blue")
    await settle(pilot)
    server.enqueue(
        Reply(tool_calls=[("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"})]),
        Reply(text="a.txt now says two"),
    )
    await send(pilot, "second: make a.txt say two")
    await settle(pilot)
    server.enqueue(
        Reply(tool_calls=[("write_file", {"path": "b.txt", "content": "new file\n"})]),
        Reply(text="done; by the way the release codename is zebrafish"),
    )
    await send(pilot, "third: add b.txt")
    await settle(pilot)


class TestRewind:
    async def test_rewind_both_to_the_second_turn(self, server, config, workspace):
        """Three turns, rewind to the second with "both": the input holds the second message,
        files of turns 2-3 are back, the meter shows the shorter conversation, the next request
        holds turn 1 and the edited message only, and recall still finds the discarded fact."""
        (workspace / "a.txt").write_text("one\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await three_turns(pilot, server)
            assert (workspace / "a.txt").read_text() == "two\n" and (workspace / "b.txt").exists()
            before = app.view.budget.conversation
            await send(pilot, "/rewind")
            await until(pilot, lambda: isinstance(app.screen, RewindScreen), what="the picker")
            assert "second: make a.txt say two" in screen_text(app)
            await pilot.press("up", "enter")  # the cursor starts on the newest; up: the second
            await until_armed(pilot)  # an Enter at once would be a double press, not a choice
            await pilot.press("enter")  # "Conversation and files" is first
            await until(pilot, lambda: app.view.prompt.text == "second: make a.txt say two", what="the text")
            await settle(pilot)
            assert (workspace / "a.txt").read_text() == "one\n" and not (workspace / "b.txt").exists()
            session = app.view.session
            assert [m.content for m in session.history] == [
                "first: remember the colour blue",
                "noted: the colour is blue",
            ]
            resumed = await session.store.sessions.load_for_resume(session.session_id)
            assert [m.content for m in resumed] == [m.content for m in session.history]  # resume agrees
            budget = app.view.budget
            assert budget.conversation < before and budget.used == session.measure().used
            assert f"{budget.used_fraction:.0%}" in str(app.query_one(ContextMeter).render())
            assert "the rest stays readable as m_" in screen_text(app)  # the discarded branch, by ref

            server.enqueue(
                Reply(tool_calls=[("recall", {"query": "zebrafish codename"})]), Reply(text="found it")
            )
            app.view.prompt.set_text("second, edited: leave a.txt alone")
            await pilot.press("enter")
            await settle(pilot)
        sent = contents(server.requests[-2])
        assert sent[:2] == [
            ("user", "first: remember the colour blue"),
            ("assistant", "noted: the colour is blue"),
        ]
        assert sent[2][0] == "user" and sent[2][1].startswith("second, edited: leave a.txt alone")
        assert len(sent) == 3 and not any("two" in text or "b.txt" in text for _, text in sent)
        recall = contents(server.requests[-1])[-1]
        assert recall[0] == "tool" and "zebrafish" in recall[1]

    async def test_esc_esc_on_an_empty_prompt_opens_rewind_and_fork_opens_a_tab(
        self, server, config, workspace
    ):
        """Esc Esc on an empty prompt opens the picker; its fork choice opens the copy in a new
        tab, holding the messages before the chosen one."""
        (workspace / "a.txt").write_text("one\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await three_turns(pilot, server)
            source = app.view.session.session_id
            app.view.prompt.focus()
            await pilot.press("escape", "escape")
            await until(pilot, lambda: isinstance(app.screen, RewindScreen), what="the picker")
            await pilot.press("enter")
            await until_armed(pilot)
            await pilot.press("down", "down", "down", "enter")  # third message → fork
            await until(
                pilot,
                lambda: app.view.session is not None and app.view.session.session_id != source,
                what="the fork's tab",
            )
            await settle(pilot)
            forked = app.view.session
            assert [m.content for m in forked.history if m.role == "user"] == [
                "first: remember the colour blue",
                "second: make a.txt say two",
            ]
            info = await forked.store.sessions.get(forked.session_id)
            assert info.forked_from == source
            assert (workspace / "b.txt").exists()  # a fork leaves the files alone


class TestFork:
    async def test_fork_command_opens_a_named_copy_and_resume_shows_its_source(
        self, server, config, workspace
    ):
        """/fork NAME continues a copy of the session (from now) in a new tab under that title;
        the /resume list marks it with its source."""
        from agent_tui.frontends.tui.session_list import session_rows

        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            server.enqueue(Reply(text="noted"))
            await send(pilot, "remember the colour blue")
            await settle(pilot)
            source = app.view.session
            await send(pilot, "/fork experiment")
            await until(
                pilot, lambda: app.view.session is not None and app.view.session is not source, what="the tab"
            )
            await settle(pilot)
            forked = app.view.session
            assert [m.content for m in forked.history] == [m.content for m in source.history]
            assert forked.title == "experiment" and len(app.query("SessionView")) == 2
            rows = await session_rows(await app.services())
            assert any(r.id == forked.session_id and f"⑂ {source.session_id}" in r.title for r in rows)
            server.enqueue(Reply(text="in the fork"))
            await send(pilot, "carry on here")
            await settle(pilot)
            assert len(source.history) == 2  # the source did not move

    async def test_fork_n_forks_from_before_message_n(self, server, config, workspace):
        """/fork 3 NAME continues a copy holding the messages before message 3 (turn 1) in a new
        tab under that name; a number past the end is a one-line notice and opens nothing."""
        (workspace / "a.txt").write_text("one\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await three_turns(pilot, server)
            source = app.view.session
            await send(pilot, "/fork 99")
            await until(pilot, lambda: "from 1 to 11" in notices(app), what="the notice")
            assert len(app.query("SessionView")) == 1
            await send(pilot, "/fork 3 side road")
            await until(pilot, lambda: app.view.session is not source, what="the fork's tab")
            await settle(pilot)
            forked = app.view.session
            assert forked.title == "side road"
            assert [m.content for m in forked.history] == [
                "first: remember the colour blue",
                "noted: the colour is blue",
            ]

    async def test_fork_alone_opens_a_picker_of_messages_and_now(self, server, config, workspace):
        """/fork alone lists your messages and "now"; Enter on "now" copies everything, a chosen
        message copies what came before it."""
        from agent_tui.frontends.tui.screens.rewind import ForkScreen

        (workspace / "a.txt").write_text("one\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await three_turns(pilot, server)
            source = app.view.session
            await send(pilot, "/fork")
            await until(pilot, lambda: isinstance(app.screen, ForkScreen), what="the picker")
            assert "now" in screen_text(app) and "second: make a.txt say two" in screen_text(app)
            await pilot.press("up", "up", "enter")  # the cursor starts on "now"; up twice: the second
            await until(pilot, lambda: app.view.session is not source, what="the fork's tab")
            await settle(pilot)
            assert [m.content for m in app.view.session.history if m.role == "user"] == [
                "first: remember the colour blue"
            ]
            await send(pilot, "/fork")
            await until(pilot, lambda: isinstance(app.screen, ForkScreen), what="the picker again")
            forked = app.view.session
            await pilot.press("enter")  # now: the whole of the (forked) conversation
            await until(pilot, lambda: app.view.session is not forked, what="the second fork")
            await settle(pilot)
            assert [m.content for m in app.view.session.history] == [m.content for m in forked.history]
