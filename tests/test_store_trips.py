"""A write on a step's path is one trip to the database's thread.

Every statement handed to aiosqlite is a trip to its thread and back, and each return is a turn
of the event loop; in the TUI a repaint (10-20 ms) may run in any of them before the step goes on,
so a turn's first request waited on the eight trips of one append. These tests count trips — the
observable work — never seconds (benchmarks/startup.py times the path).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from agent_tui.base.messages import ToolCall, assistant, tool_result, user
from agent_tui.store import open_store


class CountedTrips:
    """Stands in for aiosqlite's queue of work for its thread: counts each item, passes it on
    (the thread reads the queue it was started with)."""

    def __init__(self, queue: Any) -> None:
        self.queue = queue
        self.trips = 0

    def put_nowait(self, item: Any) -> None:
        self.trips += 1
        self.queue.put_nowait(item)


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "data" / "agent.db")
    yield opened
    await opened.close()


def counted(store) -> CountedTrips:
    conn = store.sessions.db.conn
    counter = CountedTrips(conn._tx)
    conn._tx = counter
    return counter


class TestOneTrip:
    async def test_appending_a_message_is_one_trip(self, store):
        """The user's message before the first request, a reply, a tool's result: one trip each,
        and what was appended reads back in order with its numbers."""
        made = await store.sessions.create("/p", "m")
        trips = counted(store)
        call = ToolCall(id="c1", name="bash", arguments='{"command": "ls"}')
        assert await store.sessions.append(made.id, [user("run ls")]) == [1]
        assert trips.trips == 1
        assert await store.sessions.append(made.id, [assistant(None, [call]), tool_result(call, "a b")]) == [
            2,
            3,
        ]
        assert trips.trips == 2
        got = await store.sessions.transcript(made.id)
        assert [m.role for m in got] == ["user", "assistant", "tool"]
        info = await store.sessions.get(made.id)
        assert info.message_count == 3 and info.title == "run ls"

    async def test_an_append_that_fails_leaves_nothing(self, store):
        """Numbers that do not follow the transcript: refused, and nothing of it is stored."""
        made = await store.sessions.create("/p", "m")
        await store.sessions.append(made.id, [user("one")])
        with pytest.raises(Exception, match="do not follow"):
            await store.sessions.append(made.id, [user("two")], seqs=[1])
        assert [m.content for m in await store.sessions.transcript(made.id)] == ["one"]
        assert (await store.sessions.get(made.id)).message_count == 1
        assert await store.sessions.append(made.id, [user("three")]) == [2]  # usable after

    async def test_a_read_is_one_trip(self, store):
        """Reading a session and its transcript (what opening a tab does a dozen times): one trip
        per statement, where the cursor's execute, fetch and close were three."""
        made = await store.sessions.create("/p", "m")
        await store.sessions.append(made.id, [user("one"), assistant("two")])
        trips = counted(store)
        info = await store.sessions.get(made.id)
        assert trips.trips == 1 and info.message_count == 2
        rows = await store.sessions.db.fetchall("SELECT seq FROM messages WHERE session_id = ?", (made.id,))
        assert trips.trips == 2 and [tuple(r) for r in rows] == [(1,), (2,)]

    async def test_taking_a_session_s_lease_is_one_trip(self, store):
        """Every tab takes its session's lease on the way to it: one trip, and it is taken."""
        made = await store.sessions.create("/p", "m")
        trips = counted(store)
        await store.leases.acquire(made.id)
        assert trips.trips == 1
        assert (await store.leases.holder(made.id)) is not None


class TestTheThreadHook:
    async def test_aiosqlite_still_runs_a_function_on_its_own_thread(self, store):
        """The one-trip write hands aiosqlite a function (a private hook, store/db.py): this
        fails loudly when an upgrade moves it."""
        db = store.sessions.db
        seen: list[int] = []

        def work(conn) -> int:
            seen.append(threading.get_ident())
            return conn.execute("SELECT 41 + 1").fetchone()[0]

        assert await db.transact(work) == 42
        assert seen == [db.conn._thread.ident] and seen[0] != threading.get_ident()
