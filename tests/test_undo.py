"""Checkpoints and /undo: edits of a turn are undone together; outside changes are respected."""

from __future__ import annotations

import pytest

from agent_tui.agent.undo import undo
from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.cli import flags, run_cli


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(make_config(server, tmp_path / "u.db"), workspace=workspace)
    yield svc
    await svc.close()


def edit(path, old, new):
    return ("edit_file", {"path": path, "old_string": old, "new_string": new})


class TestUndo:
    async def test_undo_restores_every_file_of_a_multi_file_turn(self, server, services, workspace):
        (workspace / "a.py").write_text("x = 1\n")
        (workspace / "b.py").write_text("y = 2\n")
        server.enqueue(
            Reply(
                tool_calls=[
                    edit("a.py", "1", "10"),
                    edit("b.py", "2", "20"),
                    ("write_file", {"path": "new.py", "content": "z\n"}),
                ]
            ),
            Reply(tool_calls=[edit("a.py", "10", "100")]),
            Reply(text="done"),
        )
        session = await services.new_session(yes=True)
        await collect(session.run_turn("change things"))
        assert (workspace / "a.py").read_text() == "x = 100\n"
        report = await undo(services.store, session.session_id)
        assert sorted(report.restored) == sorted(str(workspace / n) for n in ("a.py", "b.py", "new.py"))
        assert (workspace / "a.py").read_text() == "x = 1\n"
        assert (workspace / "b.py").read_text() == "y = 2\n"
        assert not (workspace / "new.py").exists()
        assert "Nothing to undo" in (await undo(services.store, session.session_id)).describe()

    async def test_undo_n_goes_back_n_turns(self, server, services, workspace):
        (workspace / "a.txt").write_text("v0\n")
        session = await services.new_session(yes=True)
        for k in range(3):
            server.enqueue(Reply(tool_calls=[edit("a.txt", f"v{k}", f"v{k + 1}")]), Reply(text="ok"))
            await collect(session.run_turn(f"bump {k}"))
        assert (workspace / "a.txt").read_text() == "v3\n"
        report = await undo(services.store, session.session_id, turns=2)
        assert report.turns == 2 and (workspace / "a.txt").read_text() == "v1\n"

    async def test_file_changed_outside_is_not_overwritten(self, server, services, workspace):
        (workspace / "a.txt").write_text("mine\n")
        server.enqueue(Reply(tool_calls=[edit("a.txt", "mine", "agent's")]), Reply(text="ok"))
        session = await services.new_session(yes=True)
        await collect(session.run_turn("edit"))
        (workspace / "a.txt").write_text("I changed it again\n")
        report = await undo(services.store, session.session_id)
        assert report.refused and "changed outside" in report.refused[0][1]
        assert (workspace / "a.txt").read_text() == "I changed it again\n"
        forced = await undo(services.store, session.session_id, force=True)
        assert forced.restored and (workspace / "a.txt").read_text() == "mine\n"


class TestHeadlessUndo:
    def test_sessions_undo(self, server, workspace, tmp_path):
        db = tmp_path / "h.db"
        (workspace / "f.txt").write_text("before\n")
        server.enqueue(Reply(tool_calls=[edit("f.txt", "before", "after")]), Reply(text="ok"))
        assert run_cli(["run", "edit", "--yes", *flags(server, db)], workspace).returncode == 0
        session_id = run_cli(["sessions", "list", "--db", str(db)], workspace).stdout.split()[0]
        out = run_cli(["sessions", "undo", session_id, "--db", str(db)], workspace)
        assert out.returncode == 0, out.stderr
        assert "f.txt" in out.stdout and (workspace / "f.txt").read_text() == "before\n"
