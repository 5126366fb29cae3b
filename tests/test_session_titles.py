"""A session untitled by the user is called by its first typed request's first line: the store's
list, `/status`, the server's session JSON and a hand-off all say the same (base/titles.py),
from the first message on — not "untitled" until the session is opened again."""

from __future__ import annotations

from agent_tui.base.titles import TITLE_CHARACTERS, title_from
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from testkit.fake_openai import Reply


async def replies(driver, op: ops.Op) -> list[pe.CommandReplied]:
    return [e async for e in driver.drive(op) if isinstance(e, pe.CommandReplied)]


def session_row(reply: pe.CommandReplied) -> str:
    return dict(reply.rows or ())["Session"]


async def send(driver, text: str) -> None:
    async for event in driver.drive(ops.Send(text)):
        if isinstance(event, pe.WorkFinished):
            assert event.state == "done", event.message


class TestOneTitle:
    async def test_status_names_a_new_session_by_its_first_request(self, server, driver):
        server.enqueue(Reply(text="looking"))
        await send(driver, "fix the flaky parser test\nit fails on CI only")
        session = driver.require()
        stored = await driver.services.store.sessions.get(session.session_id)
        assert stored is not None and stored.title == "fix the flaky parser test"
        [status] = await replies(driver, ops.RunCommand("/status"))
        assert session_row(status) == f"{session.session_id} · fix the flaky parser test"

    async def test_a_long_first_line_is_cut_the_same_everywhere(self, server, driver):
        server.enqueue(Reply(text="because"))
        await send(driver, "explain " + "why the cache misses " * 6)
        session = driver.require()
        stored = await driver.services.store.sessions.get(session.session_id)
        assert stored is not None and stored.title == title_from(session.history)
        assert len(stored.title) == TITLE_CHARACTERS and stored.title.endswith("…")
        [status] = await replies(driver, ops.RunCommand("/status"))
        assert session_row(status).endswith(f"· {stored.title}")

    async def test_the_users_rename_wins_over_the_first_request(self, server, driver):
        server.enqueue(Reply(text="ok"))
        await send(driver, "first thing")
        await replies(driver, ops.Rename("release notes"))
        [status] = await replies(driver, ops.RunCommand("/status"))
        assert session_row(status).endswith("· release notes")

    async def test_before_any_request_it_is_untitled(self, driver):
        [status] = await replies(driver, ops.RunCommand("/status"))
        assert session_row(status).endswith("· untitled")
