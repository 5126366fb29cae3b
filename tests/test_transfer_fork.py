"""Export and import keep what a fork and a background command left behind: the fork's source
(`forked_from`, `forked_at`) and the session's background-command rows, so an imported session
lists as a fork and, resumed, is told which commands ended with it — over real SQLite files."""

from __future__ import annotations

from agent_tui.base.messages import Message
from agent_tui.store import open_store
from agent_tui.store.forks import fork_session


def chat(*texts: str) -> list[Message]:
    return [Message(role="user" if i % 2 == 0 else "assistant", content=t) for i, t in enumerate(texts)]


async def background_rows(store, session_id: str) -> list[tuple]:
    return await store.db.fetchall(
        "SELECT shell_id, command, ref, started, ended, state, exit_code, told FROM background_commands "
        "WHERE session_id = ? ORDER BY shell_id",
        (session_id,),
    )


class TestExportImportRoundTrip:
    async def test_fork_source_and_background_rows_survive_a_round_trip(self, tmp_path):
        """A fork with one finished and one still-running background command, exported and
        imported into another database: the same `forked_from`/`forked_at`, the same rows, the
        same (unknown) cost, and the running one is reported lost on resume as it would have been
        at home."""
        async with await open_store(tmp_path / "a.db") as store:
            source = await store.sessions.create("/p", "m", "source")
            await store.sessions.append(source.id, chat("one", "two", "three", "four"))
            fork = await fork_session(store.sessions, source.id, at=3)
            await store.background.started(fork.id, "sh_1", "make watch", "r_watch")
            await store.background.started(fork.id, "sh_2", "python -m http.server", "r_serve")
            await store.background.ended(fork.id, "sh_1", "exited", 0)
            await store.sessions.add_cost(fork.id, 0.25)
            await store.sessions.add_cost(fork.id, None)  # one reply of unknown price
            rows = await background_rows(store, fork.id)
            at = await store.db.fetchone("SELECT forked_at FROM sessions WHERE id = ?", (fork.id,))
            path = await store.sessions.export(fork.id, tmp_path / "fork.json")
        async with await open_store(tmp_path / "b.db") as other:
            info = await other.sessions.import_(path)
            assert info.forked_from == source.id
            assert info.cost is None  # unknown stays unknown (it read $0.0000)
            assert await other.db.fetchone("SELECT forked_at FROM sessions WHERE id = ?", (fork.id,)) == at
            assert await background_rows(other, fork.id) == rows and len(rows) == 2
            lost = await other.background.take_lost(fork.id)
            assert [(c.shell_id, c.command, c.ref) for c in lost] == [
                ("sh_2", "python -m http.server", "r_serve")
            ]
            assert await other.background.last_number(fork.id) == 2  # a resumed session goes on at sh_3

    async def test_an_export_without_them_still_imports(self, tmp_path):
        """An original session with no background commands round-trips with neither."""
        async with await open_store(tmp_path / "a.db") as store:
            s = await store.sessions.create("/p", "m", "plain")
            await store.sessions.append(s.id, chat("hi", "hello"))
            path = await store.sessions.export(s.id, tmp_path / "s.json")
        async with await open_store(tmp_path / "b.db") as other:
            info = await other.sessions.import_(path)
            assert info.forked_from is None and await background_rows(other, s.id) == []
