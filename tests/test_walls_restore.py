"""Round three of the walls: a restore writes through the same wall as `write_file` (issue 40,
finding 2). `/undo`, `/rewind` and `sessions undo` put files back only inside the workspace,
never through a folder that became a symlink out of it, and a protected path only with
`--force`."""

from __future__ import annotations

import os

import pytest

from agent_tui.agent.undo import undo
from agent_tui.compose.factory import build_services
from agent_tui.tools.permissions import ApprovalDecision
from agent_tui.tools.workspace import OutsideWorkspace, write_confined
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.cli import flags, run_cli


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(make_config(server, tmp_path / "u.db"), workspace=workspace)
    yield svc
    await svc.close()


async def _two_writes_then_swap(server, services, workspace, outside):
    """The model writes d/notes.txt twice, the second time with the outside file's text (so the
    checksum matches after the swap); then `mv d d.old && ln -s OUTSIDE d`, as a command can."""
    outside.mkdir()
    (outside / "notes.txt").write_text("the user's own file\n")
    server.enqueue(
        Reply(tool_calls=[("write_file", {"path": "d/notes.txt", "content": "model's first text\n"})]),
        Reply(text="one"),
        Reply(tool_calls=[("write_file", {"path": "d/notes.txt", "content": "the user's own file\n"})]),
        Reply(text="two"),
    )
    session = await services.new_session(yes=True)
    await collect(session.run_turn("first"))
    await collect(session.run_turn("second"))
    os.rename(workspace / "d", workspace / "d.old")
    os.symlink(outside, workspace / "d")
    return session


class TestRestoreThroughSymlink:
    async def test_undo_leaves_the_outside_file_alone(self, server, services, workspace, tmp_path):
        outside = tmp_path / "outside"
        session = await _two_writes_then_swap(server, services, workspace, outside)
        report = await undo(services.store, session.session_id, turns=2, force=True)
        assert (outside / "notes.txt").read_text() == "the user's own file\n"
        assert report.restored == []
        assert "outside the workspace" in report.describe(workspace)

    def test_sessions_undo_refuses_and_says_why(self, server, workspace, tmp_path):
        """The CLI path of the finding: `sessions undo` printed "Restored 1 file(s)"."""
        outside = tmp_path / "outside"
        outside.mkdir()
        (outside / "notes.txt").write_text("the user's own file\n")
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "d/notes.txt", "content": "model's first text\n"})]),
            Reply(text="one"),
        )
        db = tmp_path / "c.db"
        out = run_cli(["run", "write", "--yes", *flags(server, db)], workspace)
        assert out.returncode == 0, out.stderr
        (workspace / "d/notes.txt").write_text("the user's own file\n")
        os.rename(workspace / "d", workspace / "d.old")
        os.symlink(outside, workspace / "d")
        session_id = run_cli(["sessions", "list", "--db", str(db)], workspace).stdout.split()[0]
        out = run_cli(["sessions", "undo", session_id, "--db", str(db)], workspace)
        assert (outside / "notes.txt").read_text() == "the user's own file\n"
        assert out.returncode == 1
        assert "Restored" not in out.stdout and "outside the workspace" in out.stdout

    async def test_a_protected_path_is_put_back_only_with_force(self, server, workspace, tmp_path):
        """Sandbox off, the user answered the protected write once; undo alone leaves it."""
        config = make_config(server, tmp_path / "p.db", sandbox={"mode": "off"})
        services = await build_services(config, workspace=workspace)
        (workspace / "AGENTS.md").write_text("be careful\n")
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "AGENTS.md", "content": "be bold\n"})]),
            Reply(text="done"),
        )

        async def once(request):
            return ApprovalDecision("allow_once")

        session = await services.new_session(once)
        await collect(session.run_turn("edit rules"))
        report = await undo(services.store, session.session_id)
        assert (workspace / "AGENTS.md").read_text() == "be bold\n"
        assert "protected path" in report.describe(workspace)
        forced = await undo(services.store, session.session_id, force=True)
        await services.close()
        assert forced.restored and (workspace / "AGENTS.md").read_text() == "be careful\n"


class TestTheOneWall:
    def test_a_folder_swapped_after_the_check_is_not_written_through(self, workspace, tmp_path):
        """The race: `confine` saw d as a folder; by the write it is a link out."""
        outside = tmp_path / "elsewhere"
        outside.mkdir()
        (workspace / "d").mkdir()
        target = (workspace / "d" / "x.txt").resolve()
        os.rmdir(workspace / "d")
        os.symlink(outside, workspace / "d")
        with pytest.raises(OutsideWorkspace):
            write_confined(workspace, target, b"pwned")
        assert not (outside / "x.txt").exists()

    def test_a_file_swapped_for_a_link_is_not_written_through(self, workspace, tmp_path):
        victim = tmp_path / "victim"
        victim.write_text("mine\n")
        os.symlink(victim, workspace / "f.txt")
        with pytest.raises(OutsideWorkspace):
            write_confined(workspace, workspace.resolve() / "f.txt", b"pwned")
        assert victim.read_text() == "mine\n"


def test_every_writer_for_the_model_goes_through_the_one_wall():
    """The modules that write files on the model's behalf (the file tools, /undo and /rewind)
    hold no write of their own: a new one written beside `write_confined` fails here."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "agent_tui"
    direct = re.compile(
        r"\.write_bytes\(|\.write_text\(|\.unlink\(|\bos\.(?:open|remove|unlink|replace|rename)\("
    )
    for rel in ("tools/files.py", "agent/undo.py", "agent/rewind.py"):
        source = (root / rel).read_text()
        assert not direct.search(source), f"{rel} writes outside tools/workspace.py's wall"
        assert "write_confined" in source or "undo(" in source, rel
